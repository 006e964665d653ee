package injector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// checkNewState warns when the state knows no generation while the
// outputs already carry one: a state made new on every run (a deploy
// from a temporary checkout) makes a new generation every time and
// forgets what the pages carried, the earlier generations it would keep
// beside the new one included.
func (r *run) checkNewState() {
	if len(r.st.Generations) > 0 {
		return
	}
	id, at, where := r.earlierGeneration()
	if id == "" {
		return
	}
	r.res.UnknownGeneration = id
	if !at.IsZero() {
		id += " of " + at.UTC().Format(time.RFC3339)
	}
	r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the state directory %s knows no generation, but %s carries generation %s: "+
		"the runs before kept their state elsewhere or lost it; with a new state every run makes a new generation and drops the ones before from the pages",
		r.o.StateDir, where, id))
}

// earlierGeneration returns the generation the outputs carry: the one
// whose manifest is on the site's root page, else the bundle's current
// one; "" if none.
func (r *run) earlierGeneration() (id string, at time.Time, where string) {
	if r.o.SiteDir != "" {
		for _, p := range r.pages {
			if p.URL != "/" || p.File == "" {
				continue
			}
			page, err := os.ReadFile(filepath.Join(r.o.SiteDir, filepath.FromSlash(p.File)))
			if err != nil {
				break
			}
			for f := range htmlblock.All(page) {
				if f.Err != nil || f.Kind != htmlblock.KindManifest {
					continue
				}
				if m, err := manifest.Parse(f.Payload); err == nil {
					return m.Manifest.Generation.String(), m.Manifest.Time, "the site's root page"
				}
			}
		}
	}
	if r.o.BundleDir != "" {
		raw, err := os.ReadFile(filepath.Join(r.o.BundleDir, bundleCurrent))
		if id, err2 := manifest.ParseID(strings.TrimSpace(string(raw))); err == nil && err2 == nil {
			return id.String(), time.Time{}, "the bundle"
		}
	}
	return "", time.Time{}, ""
}
