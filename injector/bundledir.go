package injector

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
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
// files it holds. Stopped by an error or Abort, it leaves nothing. It
// works through roots opened on gens and on the directory it created, so
// a name swapped for a symbolic link meanwhile (by a user who can write
// the bundle directory) leads no write, nor the mode 0755, elsewhere.
func (r *run) buildBundleGeneration(gens, dir string) (int, error) {
	root, err := os.OpenRoot(gens)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	tmp, err := rootfile.MkdirTemp(root, ".tmp-", 0o700)
	if err != nil {
		return 0, err
	}
	defer root.RemoveAll(tmp)
	gen, err := root.OpenRoot(tmp)
	if err != nil {
		return 0, err
	}
	defer gen.Close()
	files, err := r.writeBundleFiles(gen)
	if err != nil {
		return 0, err
	}
	d, err := gen.Open(".")
	if err != nil {
		return 0, err
	}
	err = d.Chmod(0o755)
	d.Close()
	if err != nil {
		return 0, err
	}
	return files, root.Rename(tmp, filepath.Base(dir))
}

// writeBundleFiles writes the generation's manifest, plan and blocks
// into gen and returns how many files it wrote.
func (r *run) writeBundleFiles(gen *os.Root) (int, error) {
	if err := gen.WriteFile("manifest", r.gen.Envelope, 0o644); err != nil {
		return 0, err
	}
	plan, err := json.MarshalIndent(bundlePlan{Manifest: r.gen.Manifests, Pages: r.gen.Pages}, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := gen.WriteFile("plan.json", plan, 0o644); err != nil {
		return 0, err
	}
	files := 2
	store := newBlockStore(r.tmp, 0, r.aborted) // stores no comment: every block goes to raw
	defer store.close()
	for i := range r.gen.Segments {
		s := &r.gen.Segments[i]
		if err := gen.MkdirAll(path.Join("blocks", s.Name), 0o755); err != nil {
			return 0, err
		}
		err := r.encodeSegment(store, s, map[manifest.BlockRef]bool{}, func(ref manifest.BlockRef, raw []byte) error {
			name := strconv.FormatUint(uint64(ref.Stripe), 10) + "." + strconv.FormatUint(uint64(ref.Shard), 10)
			files++
			return gen.WriteFile(path.Join("blocks", s.Name, name), raw, 0o644)
		})
		if errors.Is(err, ErrWriteInterrupted) {
			return 0, err
		}
		if err != nil {
			return 0, fmt.Errorf("bundle: %w", err)
		}
	}
	return files, nil
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
