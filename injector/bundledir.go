package injector

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Bundle directory layout (read by the Caddy module):
//
//	DIR/current                           the current generation id and a newline
//	DIR/generations/ID/manifest           the signed manifest envelope
//	DIR/generations/ID/plan.json          {"manifest": [URL…], "pages": {URL: ["seg/stripe/shard"…]}}
//	DIR/generations/ID/blocks/SEG/S.I     every block (stripe S, shard I) of every segment, raw
//
// A generation directory is complete before it appears (built under a
// temporary name, then renamed), and current is replaced atomically, so a
// reader never sees half of a generation.
const (
	bundleCurrent     = "current"
	bundleGenerations = "generations"
)

type bundlePlan struct {
	Manifest []string              `json:"manifest"`
	Pages    map[string][]blockRef `json:"pages"`
}

func (r *run) writeBundle() error {
	gens := filepath.Join(r.o.BundleDir, bundleGenerations)
	if err := os.MkdirAll(gens, 0o755); err != nil {
		return err
	}
	dir := filepath.Join(gens, r.gen.ID.String())
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		n, err := r.buildBundleGeneration(gens, dir)
		if err != nil {
			return err
		}
		r.res.Written += n
	}
	wrote, err := writeIfChanged(filepath.Join(r.o.BundleDir, bundleCurrent), []byte(r.gen.ID.String()+"\n"), 0o644, nil)
	if wrote {
		r.res.Written++
	}
	if err != nil {
		return err
	}
	return r.pruneBundle(gens)
}

// buildBundleGeneration writes the generation's directory under a
// temporary name, renamed into place when complete, and returns how many
// files it holds. Stopped by an error or Abort, it leaves nothing.
func (r *run) buildBundleGeneration(gens, dir string) (int, error) {
	tmp, err := os.MkdirTemp(gens, ".tmp-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "manifest"), r.gen.Envelope, 0o644); err != nil {
		return 0, err
	}
	plan, err := json.MarshalIndent(bundlePlan{Manifest: r.gen.Manifests, Pages: r.gen.Pages}, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "plan.json"), plan, 0o644); err != nil {
		return 0, err
	}
	files := 2
	store := newBlockStore(r.tmp, 0, r.aborted) // stores no comment: every block goes to raw
	defer store.close()
	for i := range r.gen.Segments {
		s := &r.gen.Segments[i]
		if err := os.MkdirAll(filepath.Join(tmp, "blocks", s.Name), 0o755); err != nil {
			return 0, err
		}
		err := r.encodeSegment(store, s, map[manifest.BlockRef]bool{}, func(ref manifest.BlockRef, raw []byte) error {
			name := strconv.FormatUint(uint64(ref.Stripe), 10) + "." + strconv.FormatUint(uint64(ref.Shard), 10)
			files++
			return os.WriteFile(filepath.Join(tmp, "blocks", s.Name, name), raw, 0o644)
		})
		if errors.Is(err, ErrWriteInterrupted) {
			return 0, err
		}
		if err != nil {
			return 0, fmt.Errorf("bundle: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, err
	}
	return files, os.Rename(tmp, dir)
}

// pruneBundle removes generation directories the state no longer keeps.
func (r *run) pruneBundle(gens string) error {
	keep := map[string]bool{}
	for _, g := range r.st.Generations {
		keep[g.ID.String()] = true
	}
	entries, err := os.ReadDir(gens)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !keep[e.Name()] && len(e.Name()) == 32 {
			os.RemoveAll(filepath.Join(gens, e.Name()))
		}
	}
	return nil
}
