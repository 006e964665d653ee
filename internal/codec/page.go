package codec

import (
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// PageReport says what one page contributed.
type PageReport struct {
	Accepted  int                // good blocks stored or used
	Redundant int                // good blocks not needed
	Rejected  int                // damaged, forged or unattributable blocks: erasures
	Manifests []*manifest.Signed // verified manifests found on the page
	// Problems has one error per rejected comment, with its offset, for
	// the first MaxPageProblems of them; Omitted counts the rest. A hostile
	// page of a million broken comments costs a counter, not a million
	// strings.
	Problems []error
	Omitted  int
}

// MaxPageProblems bounds the problems AddPage keeps per page.
const MaxPageProblems = 16

// AddPage scans a page (any bytes: a capture, a mirror file, a truncated
// record) for Lazarus comments and adds every block and manifest it finds.
// Damage never stops the scan; each damaged comment is one Problem.
func (a *Assembler) AddPage(page []byte) PageReport {
	var rep PageReport
	for f := range htmlblock.All(page) {
		err := f.Err
		if err == nil {
			err = a.addFound(f, &rep)
		}
		switch {
		case err == nil:
		case len(rep.Problems) < MaxPageProblems:
			rep.Problems = append(rep.Problems, fmt.Errorf("comment at byte %d: %w", f.Offset, err))
		default:
			rep.Omitted++
		}
	}
	return rep
}

func (a *Assembler) addFound(f htmlblock.Found, rep *PageReport) error {
	switch f.Kind {
	case htmlblock.KindManifest:
		m, err := a.AddManifest(f.Payload)
		if err != nil {
			rep.Rejected++
			return err
		}
		rep.Manifests = append(rep.Manifests, m)
		return nil
	case htmlblock.KindBlock:
		o, err := a.Add(f.Payload)
		switch o {
		case Accepted:
			rep.Accepted++
		case Redundant:
			rep.Redundant++
		default:
			rep.Rejected++
		}
		return err
	}
	return fmt.Errorf("unexpected comment kind %q", f.Kind)
}
