package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/demo"
)

// TestDemo plays the whole story with the in-process Caddy and checks that it ends with every file
// verified, and that --keep keeps the evidence.
func TestDemo(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "kept")
	var out bytes.Buffer
	if err := demo.Run(context.Background(), demo.Options{Keep: keep, Out: &out, Serve: serveWithCaddy}); err != nil {
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
