package injector

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunCancelled: a run whose context is done before the new state is
// saved stops promptly with the context's cause and changes nothing: no
// page, no state, no segment file, no dump process left.
func TestRunCancelled(t *testing.T) {
	cases := map[string]func(t *testing.T, f *fixture, o *Options) context.Context{
		// Expected: nothing runs at all.
		"before the run": func(t *testing.T, f *fixture, o *Options) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		},
		// Expected: packing stops at the next read of a 4 MiB file.
		"while packing": func(t *testing.T, f *fixture, o *Options) context.Context {
			noise := make([]byte, 4<<20)
			rand.Read(noise)
			f.write(t, "src/app/big.bin", string(noise))
			ctx, cancel := context.WithCancel(context.Background())
			o.Progress = func(p Progress) {
				if p.Phase == PhasePack && p.Done > 0 {
					cancel()
				}
			}
			return ctx
		},
		// Expected: the listing segment, sealed and placed while planning,
		// never reaches the state directory.
		"before saving the state": func(t *testing.T, f *fixture, o *Options) context.Context {
			for i := range 3000 {
				f.write(t, fmt.Sprintf("src/app/many/file%04d.txt", i), "x")
			}
			ctx, cancel := context.WithCancel(context.Background())
			o.Progress = func(p Progress) {
				if p.Phase == PhaseSave {
					cancel()
				}
			}
			return ctx
		},
		// Expected: the dump and its background job are killed.
		"during a dump": func(t *testing.T, f *fixture, o *Options) context.Context {
			o.Dumps = []Dump{{Name: "db", Command: hangingDump(f.dir)}}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				waitForFile(filepath.Join(f.dir, "pid"))
				cancel()
			}()
			t.Cleanup(func() { assertDumpGone(t, f.dir) })
			return ctx
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 60, 4)
			o := f.options()
			ctx := setup(t, f, &o)
			before := treeSnapshot(t, filepath.Join(f.dir, "site"))
			start := time.Now()
			_, err := Run(ctx, o)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("stopping took %v", took)
			}
			if after := treeSnapshot(t, filepath.Join(f.dir, "site")); after != before {
				t.Errorf("the site changed:\n%s\nwant\n%s", after, before)
			}
			if _, err := os.Stat(filepath.Join(o.StateDir, "state.json")); !os.IsNotExist(err) {
				t.Errorf("state.json written: %v", err)
			}
			if segs, _ := os.ReadDir(filepath.Join(o.StateDir, "segments")); len(segs) > 0 {
				t.Errorf("%d segment files saved", len(segs))
			}
		})
	}
}

// treeSnapshot lists every file under root with its size, mtime and
// content.
func treeSnapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %d %d %x\n", p, info.Size(), info.ModTime().UnixNano(), raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
