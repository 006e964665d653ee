package injector

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestWriteAborted: Abort closed in the write phase (after the state is
// saved) stops the run between two files; no temporary file is left in
// the outputs, the pages are as they were, and the next run completes
// them and says so.
func TestWriteAborted(t *testing.T) {
	cases := map[string]struct {
		at    int // abort at this report of PhaseWrite: 0 comes before the blocks are encoded, 1 + i before page i, then the snippets
		setup func(f *fixture, o *Options)
	}{
		// Expected: stopped while encoding the blocks, before any page.
		"encoding": {0, func(*fixture, *Options) {}},
		// Expected: half the pages are staged as temporary files beside
		// them; all are removed and no page is renamed into place.
		"staging the pages": {30, func(*fixture, *Options) {}},
		// Expected: the site's pages are written, the snippets stop half way;
		// each snippet is old or new, none half written.
		"writing snippets": {92, func(f *fixture, o *Options) { o.SnippetsDir = filepath.Join(f.dir, "snip") }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 60, 40)
			o := f.options()
			c.setup(f, &o)
			site := filepath.Join(f.dir, "site")
			before := treeSnapshot(t, site)
			abort := make(chan struct{})
			closeOnce := sync.OnceFunc(func() { close(abort) })
			writes := 0
			o.Abort = abort
			o.Progress = func(p Progress) {
				if p.Phase == PhaseWrite {
					if writes == c.at {
						closeOnce()
					}
					writes++
				}
			}
			_, err := Run(context.Background(), o)
			if !errors.Is(err, ErrWriteInterrupted) {
				t.Fatalf("got %v, want ErrWriteInterrupted", err)
			}
			if left := tempFiles(t, f.dir, "site", "snip"); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
			if o.SnippetsDir == "" {
				if after := treeSnapshot(t, site); after != before {
					t.Error("the site changed")
				}
			}
			if _, err := os.Stat(filepath.Join(o.StateDir, "state.json")); err != nil {
				t.Fatalf("the state was not saved: %v", err)
			}
			o.Abort, o.Progress = nil, nil
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.New || !res.Completed || res.Written == 0 {
				t.Fatalf("next run: new %v, completed %v, %d written; want the saved generation completed", res.New, res.Completed, res.Written)
			}
			f.recover(t)
			res, err = Run(context.Background(), o)
			if err != nil || res.Completed || res.Written != 0 {
				t.Fatalf("third run: %v, completed %v, %d written; want nothing to complete", err, res.Completed, res.Written)
			}
		})
	}
}

// tempFiles lists the inject temporary files under dir's subdirectories.
func tempFiles(t *testing.T, dir string, subdirs ...string) []string {
	t.Helper()
	var out []string
	for _, sub := range subdirs {
		filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err == nil && (strings.HasPrefix(d.Name(), tmpPrefix) || strings.HasPrefix(d.Name(), ".tmp-")) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// TestResultJSON: lists with nothing in them are [] in JSON, never null.
func TestResultJSON(t *testing.T) {
	f := newFixture(t, 8, 3)
	o := f.options()
	o.DryRun = true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	// Expected: every page of the fixture can carry blocks.
	if !strings.Contains(string(raw), `"excluded_pages":[]`) || strings.Contains(string(raw), "null") {
		t.Fatalf("JSON: %s", raw)
	}
}

// TestBundleWrittenCount: a bundle run counts every file it writes: the
// manifest, plan.json, each block and current.
func TestBundleWrittenCount(t *testing.T) {
	f := newFixture(t, 8, 3)
	o := f.options()
	o.SiteDir, o.URLs, o.BundleDir = "", []string{"/", "/a/", "/b/", "/c/"}, filepath.Join(f.dir, "bundle")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	filepath.WalkDir(o.BundleDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if res.Written != files || files < 4 {
		t.Fatalf("%d files written, the bundle holds %d", res.Written, files)
	}
}
