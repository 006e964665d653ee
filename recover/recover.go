package recover

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Report says what a recovery found and rebuilt.
type Report struct {
	Generation string          `json:"generation,omitempty"` // the restore point, if one generation is complete
	Segments   []SegmentReport `json:"segments"`
	Captures   int             `json:"captures"`        // captures listed
	Pages      int             `json:"pages"`           // pages fetched and scanned
	Blocks     int             `json:"blocks"`          // good blocks used or redundant
	Rejected   int             `json:"rejected_blocks"` // damaged, forged or unsigned comments
	Problems   []string        `json:"problems,omitempty"`
	// Provenance lists every capture that contributed blocks or a
	// manifest: where each piece of the rebuilt files came from.
	Provenance []Contribution `json:"provenance,omitempty"`
}

// Contribution is what one archived capture contributed.
type Contribution struct {
	Source    string    `json:"source"`
	URL       string    `json:"url"`
	Time      time.Time `json:"time,omitzero"`
	Blocks    int       `json:"blocks"`          // good blocks used
	Manifests int       `json:"manifests"`       // verified manifests
	Rejected  int       `json:"rejected_blocks"` // damaged or forged comments
}

// ReportFile is the report's name in the output directory.
const ReportFile = "recovery.json"

// Save writes the report as JSON to dir/recovery.json.
func (r *Report) Save(dir string) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ReportFile), append(raw, '\n'), 0o644)
}

// SegmentReport is one segment's outcome.
type SegmentReport struct {
	Name       string `json:"name"`
	Generation string `json:"generation"` // the generation its version comes from
	Status     string `json:"status"`     // "rebuilt" or "short"
	Detail     string `json:"detail,omitempty"`
	Files      int    `json:"files"`
	Bytes      int64  `json:"bytes"`
}

// FromPages rebuilds the server side from pages (name → bytes: captures,
// mirror files, copies). It restores the newest generation whose segments
// are all complete; if there is none, the newest complete version of each
// segment, saying which generation each comes from. It returns ErrPartial
// (with the report) when some segment could not be rebuilt and
// ErrNothingFound when nothing could.
func FromPages(ctx context.Context, pages iter.Seq2[string, []byte], o Options) (*Report, error) {
	a, err := o.assembler()
	if err != nil {
		return nil, err
	}
	defer a.Close()
	rep := &Report{}
	var manifests []*manifest.Signed
	for name, page := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pr := a.AddPage(page)
		rep.Pages++
		rep.Blocks += pr.Accepted + pr.Redundant
		rep.Rejected += pr.Rejected
		for _, p := range pr.Problems {
			rep.Problems = append(rep.Problems, name+": "+p.Error())
		}
		manifests = append(manifests, pr.Manifests...)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	return rep, restore(a, manifests, rep, o)
}

// FromDir rebuilds from every HTML file under dir (a wget or httrack
// mirror, a browser's saved pages, a copy of a site): Recover with one
// DirSource.
func FromDir(ctx context.Context, dir string, o Options) (*Report, error) {
	o.Sources = []Source{DirSource{Dir: dir}}
	return Recover(ctx, o)
}

// restore chooses what to extract and extracts it.
func restore(a *codec.Assembler, manifests []*manifest.Signed, rep *Report, o Options) error {
	status := a.Status()
	targets, gen := choose(manifests, status, &o)
	rep.Generation = gen
	var short int
	for _, t := range targets {
		sr := SegmentReport{Name: t.layout.Name, Generation: manifest.ID(t.layout.Generation).String()}
		if t.err != nil {
			sr.Status, sr.Detail = "short", t.err.Error()
			short++
		} else {
			res, err := a.Extract(t.layout, o.Out, bundle.ExtractOptions{MaxTarSize: t.tarSize, Force: o.Force})
			if errors.Is(err, bundle.ErrExists) {
				return fmt.Errorf("%w (existing files are kept; use --force to overwrite them)", err)
			}
			sr.Status, sr.Files, sr.Bytes = "rebuilt", res.Files, res.Bytes
			if err != nil {
				sr.Status, sr.Detail = "short", err.Error()
				short++
			}
		}
		rep.Segments = append(rep.Segments, sr)
	}
	switch {
	case len(targets) == 0:
		return ErrNothingFound
	case short > 0:
		return fmt.Errorf("%w: %d of %d segments rebuilt", ErrPartial, len(targets)-short, len(targets))
	}
	return nil
}

// target is one segment version to extract, or why it cannot be.
type target struct {
	layout  block.Layout
	tarSize int64
	err     error
}
