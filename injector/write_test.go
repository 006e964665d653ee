package injector

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempsIn returns the temporary files inject left under dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tmpPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestBatchCommit checks a batch over several directories: every file
// has its new bytes, mode and mtime, an existing file keeps its mode, and
// no temporary file is left.
func TestBatchCommit(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "a", "old.html")
	os.MkdirAll(filepath.Dir(old), 0o755)
	if err := os.WriteFile(old, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var b batch
	files := map[string]string{old: "new a", filepath.Join(dir, "b", "x.html"): "new b", filepath.Join(dir, "c", "d", "y.html"): "new c"}
	for p, data := range files {
		if err := b.add(p, []byte(data), 0o644, &mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	for p, data := range files {
		got, err := os.ReadFile(p)
		info, serr := os.Stat(p)
		if err != nil || serr != nil || string(got) != data || !info.ModTime().Equal(mtime) {
			t.Errorf("%s: %q, %v, %v, mtime %v; want %q at %v", p, got, err, serr, info.ModTime(), data, mtime)
			continue
		}
		if want := map[bool]os.FileMode{true: 0o640, false: 0o644}[p == old]; info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}
	if left := tempsIn(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestBatchCommitError checks that a rename that fails (the target is a
// non-empty directory) makes commit fail and leaves no temporary file,
// in its directory or any other.
func TestBatchCommitError(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "a", "page.html")
	os.MkdirAll(filepath.Join(blocked, "inside"), 0o755)
	var b batch
	for _, p := range []string{filepath.Join(dir, "a", "first.html"), blocked, filepath.Join(dir, "a", "last.html"), filepath.Join(dir, "b", "x.html")} {
		if err := b.add(p, []byte("data"), 0o644, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.commit(); err == nil {
		t.Fatal("commit renamed a file over a non-empty directory")
	}
	if left := tempsIn(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(blocked, "inside")); err != nil {
		t.Errorf("the directory in the way was changed: %v", err)
	}
}
