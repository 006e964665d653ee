package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo plays the whole story and checks that it ends with every file
// verified, and that --keep keeps the evidence.
func TestDemo(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "kept")
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Keep: keep, Out: &out}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"8. Verify", "identical to the originals", "came back byte for byte"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("story lacks %q:\n%s", want, out.String())
		}
	}
	for _, p := range []string{"keys/owner.key", "archive/crawl.warc.gz", "recovered/recovery.json", "recovered/db"} {
		if _, err := os.Stat(filepath.Join(keep, p)); err != nil {
			t.Errorf("--keep: %v", err)
		}
	}
}

// TestKeepMustBeEmpty: the demo never writes into a directory holding
// something else.
func TestKeepMustBeEmpty(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "precious"), []byte("x"), 0o644)
	if err := Run(context.Background(), Options{Keep: dir}); err == nil {
		t.Fatal("demo ran in a non-empty directory")
	}
}
