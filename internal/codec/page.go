package codec

import (
	"errors"
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
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
	switch {
	case errors.Is(err, keys.ErrUnknownSigner):
		r.Foreign++
	case errors.Is(err, keys.ErrUnsigned):
		r.Unsigned++
	}
	if len(r.Problems) < MaxPageProblems {
		r.Problems = append(r.Problems, err)
	} else {
		r.Omitted++
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
// one Problem.
func (a *Assembler) AddPage(page []byte, from Origin) PageReport {
	rep := PageReport{From: from}
	for f := range htmlblock.All(page) {
		err := f.Err
		if err == nil {
			err = a.addFound(f, &rep)
		}
		if err != nil {
			rep.problem(fmt.Errorf("comment at byte %d: %w", f.Offset, err))
		}
	}
	rep.Released = a.salts.afterPage(a)
	return rep
}

func (a *Assembler) addFound(f htmlblock.Found, rep *PageReport) error {
	switch f.Kind {
	case htmlblock.KindManifest:
		if id, salt := parseSalt(f.Payload); a.salts.park(id, salt, itemManifest, f.Payload, rep.From) {
			rep.Parked++
			return nil
		}
		m, err := a.AddManifest(f.Payload)
		if err != nil {
			rep.Rejected++
			return err
		}
		rep.Manifests = append(rep.Manifests, m)
		return nil
	case htmlblock.KindBlock:
		o, err := a.Add(f.Payload, rep.From)
		rep.count(o)
		return err
	}
	return fmt.Errorf("unexpected comment kind %q", f.Kind)
}
