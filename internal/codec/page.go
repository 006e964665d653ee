package codec

import (
	"errors"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// PageReport says what one page contributed.
type PageReport struct {
	From      Origin             // the page
	Accepted  int                // good blocks stored or used
	Redundant int                // good blocks not needed
	Rejected  int                // damaged, forged or unattributable blocks: erasures
	Foreign   int                // of which signed by a key other than the owner's
	Unsigned  int                // of which unsigned (public data not allowed)
	Parked    int                // blocks and manifests waiting for their salt to be tried
	Manifests []*manifest.Signed // verified manifests found on the page
	// Problems has one error per rejected comment, with its offset, for
	// the first MaxPageProblems of them; Omitted counts the rest. A hostile
	// page of a million broken comments costs a counter, not a million
	// strings.
	Problems []error
	Omitted  int
	// Released reports, by the page they came from, what items parked on
	// earlier pages contributed once their salt was tried after this one.
	Released []PageReport
}

// MaxPageProblems bounds the problems AddPage keeps per page.
const MaxPageProblems = 16

func (r *PageReport) problem(err error) {
	r.classify(err)
	if len(r.Problems) < MaxPageProblems {
		r.Problems = append(r.Problems, err)
	} else {
		r.Omitted++
	}
}

// classify counts a foreign or unsigned item.
func (r *PageReport) classify(err error) {
	switch {
	case errors.Is(err, keys.ErrUnknownSigner):
		r.Foreign++
	case errors.Is(err, keys.ErrUnsigned):
		r.Unsigned++
	}
}

func (r *PageReport) count(o Outcome) {
	switch o {
	case Accepted:
		r.Accepted++
	case Redundant:
		r.Redundant++
	case Parked:
		r.Parked++
	default:
		r.Rejected++
	}
}

// AddPage scans a page (any bytes: a capture, a mirror file, a truncated
// record) found at from for Lazarus comments and adds every block and
// manifest it finds. Damage never stops the scan; each damaged comment is
// one Problem. It is AddScanned(Scan(page, from)); see Scan to spread the
// scanning over several goroutines.
func (a *Assembler) AddPage(page []byte, from Origin) PageReport {
	return a.AddScanned(a.Scan(page, from))
}
