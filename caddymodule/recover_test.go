package caddymodule

import (
	"bytes"
	"context"
	"iter"
	"os"
	"path/filepath"
	"testing"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// checkRecover restores the fixture's files from pages and compares them
// byte for byte with the originals.
func checkRecover(t *testing.T, f *fixture, pages map[string][]byte) {
	t.Helper()
	checkRecoverFiles(t, f.owner, pages, map[string]string{
		"app/index.php": filepath.Join(f.src, "app/index.php"), "app/app.conf": filepath.Join(f.src, "app/app.conf")})
}

// checkRecoverFiles restores a backup from pages with the owner key and
// compares restored files (relative paths) with originals (local paths).
func checkRecoverFiles(t *testing.T, owner []byte, pages map[string][]byte, files map[string]string) {
	t.Helper()
	seq := iter.Seq2[string, []byte](func(yield func(string, []byte) bool) {
		for name, b := range pages {
			if !yield(name, b) {
				return
			}
		}
	})
	out := filepath.Join(t.TempDir(), "out")
	if _, err := lzrecover.FromPages(context.Background(), seq, lzrecover.Options{OwnerKey: owner, Out: out}); err != nil {
		t.Fatal(err)
	}
	for rel, orig := range files {
		want, _ := os.ReadFile(orig)
		got, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: restored %d bytes, want %d: %v", rel, len(got), len(want), err)
		}
	}
}

// TestRecoverFromServedPages: the planned pages served through the handler
// hold the whole backup.
func TestRecoverFromServedPages(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	pages := map[string][]byte{}
	for _, u := range f.opts.URLs {
		pages[u] = serve(t, h, &page{body: html}, "GET", u, nil).Body.Bytes()
	}
	checkRecover(t, f, pages)
}
