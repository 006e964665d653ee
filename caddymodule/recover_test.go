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
	seq := iter.Seq2[string, []byte](func(yield func(string, []byte) bool) {
		for name, b := range pages {
			if !yield(name, b) {
				return
			}
		}
	})
	out := filepath.Join(t.TempDir(), "out")
	if _, err := lzrecover.FromPages(context.Background(), seq, lzrecover.Options{OwnerKey: f.owner, Out: out}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.php", "app.conf"} {
		want, _ := os.ReadFile(filepath.Join(f.src, "app", name))
		got, err := os.ReadFile(filepath.Join(out, "app", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: restored %d bytes, want %d: %v", name, len(got), len(want), err)
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
