package injector

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// pendingSegment is a segment version saved in the run's temporary
// directory, to be moved into the state by commit.
type pendingSegment struct {
	path string
	id   manifest.Digest
}

// unfinishedFile, in the state directory, names the generation whose
// outputs a run is writing: made before the new state is saved, removed
// once the outputs are written. A run that finds it naming the generation
// it keeps knows an earlier run stopped in between, and reports that it
// completed the outputs.
const unfinishedFile = "unfinished"

// readUnfinished returns the generation an earlier run saved and did not
// finish writing, or "".
func readUnfinished(dir string) string {
	raw, _ := os.ReadFile(filepath.Join(dir, unfinishedFile))
	return strings.TrimSpace(string(raw))
}

// commit saves the new segment versions and the new state before any page
// changes, so pages are always derived from a saved state: a run that is
// interrupted while writing pages is completed by the next run.
func (r *run) commit() error {
	if err := os.WriteFile(filepath.Join(r.o.StateDir, unfinishedFile), []byte(r.gen.ID.String()+"\n"), 0o600); err != nil {
		return err
	}
	for _, sealed := range r.fresh {
		if err := sealed.Save(segmentPath(r.o.StateDir, sealed.ID)); err != nil {
			return err
		}
	}
	if r.listing != nil {
		if err := os.Rename(r.listing.path, segmentPath(r.o.StateDir, r.listing.id)); err != nil {
			return err
		}
	}
	if r.newKey {
		if err := r.key.save(r.o.StateDir); err != nil {
			return err
		}
	}
	r.st.Site = r.o.SiteURL
	r.st.Generations = append([]generationInfo{r.gen}, r.previousGenerations()...)
	r.st.Held = r.held
	raw, err := json.MarshalIndent(r.st, "", "  ")
	if err != nil {
		return err
	}
	if _, err := writeIfChanged(filepath.Join(r.o.StateDir, "state.json"), append(raw, '\n'), 0o600, nil); err != nil {
		return err
	}
	return r.collectGarbage()
}

// collectGarbage removes saved segment versions no kept generation uses.
func (r *run) collectGarbage() error {
	live := map[string]bool{}
	for _, g := range r.st.Generations {
		for _, s := range g.Segments {
			live[s.ID.String()] = true
		}
	}
	dir := filepath.Join(r.o.StateDir, "segments")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !live[e.Name()] {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}
