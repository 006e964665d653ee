package demo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestKeepMustBeEmpty: the demo never writes into a directory holding
// something else.
func TestKeepMustBeEmpty(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "precious"), []byte("x"), 0o644)
	serve := func(string, string, string) (string, func() error, error) {
		t.Fatal("the demo started serving in a non-empty directory")
		return "", nil, nil
	}
	if err := Run(context.Background(), Options{Keep: dir, Serve: serve}); err == nil {
		t.Fatal("demo ran in a non-empty directory")
	}
}
