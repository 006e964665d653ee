package noatime

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpen: both forms read the file's bytes, and a missing file is an
// error that says so.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("page"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, open := range map[string]func(string) (*os.File, error){
		"Open":   func(n string) (*os.File, error) { return Open(filepath.Join(dir, n)) },
		"OpenIn": func(n string) (*os.File, error) { return OpenIn(root, n) },
	} {
		f, err := open("a")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != "page" {
			t.Fatalf("%s: read %q, %v", name, b, err)
		}
		if _, err := open("missing"); !os.IsNotExist(err) {
			t.Fatalf("%s of a missing file: %v, want not-exist", name, err)
		}
	}
}
