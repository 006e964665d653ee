package injector

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// HistoryDir is the serve history's directory in the state directory
// (docs/FORMAT.md §14.1): for every page version a run wrote into the
// site, its digests (SHA-1 and SHA-256) with the generations and blocks it carries, one
// batch of records per generation, and the manifests they name.
// `lazarus status` reads it to tell what an archive's capture holds from
// its listing alone. Only static sites (Options.SiteDir) are recorded:
// snippets become pages in another program, and bundle pages are
// rendered, and recorded, by the Caddy module.
const HistoryDir = "history"

// pageVersions collects the page versions a run stages, to be recorded
// once they are in place.
type pageVersions struct {
	recs []history.Record
	gens map[string]bool // generations the records name
}

// note records that the page at url will be served with the given
// digests (history.SumsOf its bytes), first produced at at, depth link
// hops from the root (nil when unknown). Pages that
// carry nothing and did not change are not versions a run produced:
// callers leave them out (see addPage).
func (r *run) note(v *pageVersions, url string, depth *int, sums history.Sums, at time.Time) {
	rec := history.Record{Digest: sums.SHA1, SHA256: sums.SHA256, URL: r.servedPath(url), Time: at.UTC(), Depth: depth}
	if slices.Contains(r.gen.Manifests, url) {
		rec.Manifest = r.gen.ID.String()
	}
	blocks := map[string][]string{}
	cur := r.gen.ID.String()
	for _, ref := range r.gen.Pages[url] {
		blocks[cur] = append(blocks[cur], ref.String())
	}
	for _, ref := range r.old[url] {
		if g := r.oldGeneration(ref.SegmentID); g != "" {
			blocks[g] = append(blocks[g], ref.Block.String())
		}
	}
	if len(blocks) > 0 {
		rec.Blocks = blocks
	}
	if v.gens == nil {
		v.gens = map[string]bool{}
	}
	if rec.Manifest != "" {
		v.gens[rec.Manifest] = true
	}
	for g := range blocks {
		v.gens[g] = true
	}
	v.recs = append(v.recs, rec)
}

// oldGeneration returns the id of the newest kept previous generation
// that names the segment version id (where the plan took the old block
// from, see oldBlocks), "" if none does.
func (r *run) oldGeneration(id manifest.Digest) string {
	for _, g := range r.previousGenerations() {
		for _, s := range g.Segments {
			if s.ID == id {
				return g.ID.String()
			}
		}
	}
	return ""
}

// servedPath maps a site-relative page URL ("/", "/about/") to its path
// on the server: the site URL's path, then the page's.
func (r *run) servedPath(rel string) string {
	prefix := "/"
	if u, err := url.Parse(r.o.SiteURL); err == nil && u.EscapedPath() != "" {
		prefix = u.EscapedPath()
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
	}
	return prefix + strings.TrimPrefix(rel, "/")
}

// recordHistory adds the versions to the state's history: records not
// yet in the generation's batch, and the manifest of every generation
// they name. Called once the pages are in place. The history is
// advisory (recovery never reads it), so a failure is a warning in the
// report, not a failed run; a record that does not fit the format (a
// URL over history.MaxURLBytes) is left out, with a warning.
func (r *run) recordHistory(v *pageVersions) {
	if len(v.recs) == 0 {
		return
	}
	st := history.Dir(filepath.Join(r.o.StateDir, HistoryDir))
	ctx := context.Background() // the pages are written: the record must follow them
	valid := v.recs[:0]
	for _, rec := range v.recs {
		if err := rec.Validate(); err != nil {
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("serve history: page %s left out: %v", rec.URL, err))
			continue
		}
		valid = append(valid, rec)
	}
	for _, gen := range slices.Sorted(maps.Keys(v.gens)) {
		env := r.envelope(gen)
		if env == nil {
			continue
		}
		if err := history.AddManifest(ctx, st, gen, env); err != nil {
			r.res.Warnings = append(r.res.Warnings, "serve history: "+err.Error())
		}
	}
	if _, err := history.AddBatch(ctx, st, r.gen.ID.String(), valid...); err != nil {
		r.res.Warnings = append(r.res.Warnings, "serve history: "+err.Error())
	}
}

// envelope returns the signed manifest of generation gen: the current
// one or a kept previous one, nil if the state no longer has it.
func (r *run) envelope(gen string) []byte {
	if r.gen.ID.String() == gen {
		return r.gen.Envelope
	}
	for _, g := range r.previousGenerations() {
		if g.ID.String() == gen {
			return g.Envelope
		}
	}
	return nil
}
