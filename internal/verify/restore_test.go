package verify

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestCompareEntry: each way a restored entry can differ from its listing
// is a mismatch saying how; a matching entry is not.
func TestCompareEntry(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.Chmod(filepath.Join(dir, "d"), 0o755)
	os.Symlink("f", filepath.Join(dir, "l"))
	sum := manifest.Digest(sha256.Sum256([]byte("hello")))
	other := manifest.Digest(sha256.Sum256([]byte("hellO")))
	regular := manifest.File{Path: "f", Type: "regular", Size: 5, Mode: "0640", SHA256: &sum}
	with := func(f manifest.File, edit func(*manifest.File)) manifest.File { edit(&f); return f }
	tests := []struct {
		name string
		f    manifest.File
		want string // "" for a match
	}{
		{"regular matches", regular, ""},
		{"dir matches", manifest.File{Path: "d", Type: "dir", Mode: "0755"}, ""},
		{"symlink matches", manifest.File{Path: "l", Type: "symlink", Link: "f"}, ""},
		{"setuid cleared is no mismatch", with(regular, func(f *manifest.File) { f.Mode = "4640" }), ""},
		{"other bytes", with(regular, func(f *manifest.File) { f.SHA256 = &other }), "SHA-256"},
		{"no hash", with(regular, func(f *manifest.File) { f.SHA256 = nil }), "no SHA-256"},
		{"other size", with(regular, func(f *manifest.File) { f.Size = 6 }), "5 bytes, the listing says 6"},
		{"other mode", with(regular, func(f *manifest.File) { f.Mode = "0644" }), "mode 0640"},
		{"bad mode", with(regular, func(f *manifest.File) { f.Mode = "rw" }), "not octal"},
		{"missing", with(regular, func(f *manifest.File) { f.Path = "g" }), "missing"},
		{"outside", with(regular, func(f *manifest.File) { f.Path = "../f" }), "outside"},
		{"dir listed as file", with(regular, func(f *manifest.File) { f.Path = "d" }), "restored as d"},
		{"file listed as dir", manifest.File{Path: "f", Type: "dir", Mode: "0640"}, "listed as a directory"},
		{"other link", manifest.File{Path: "l", Type: "symlink", Link: "g"}, `links to "f"`},
		{"file listed as link", manifest.File{Path: "f", Type: "symlink", Link: "f"}, "listed as a symbolic link"},
		{"unknown type", manifest.File{Path: "f", Type: "fifo"}, "unknown entry type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compareEntry(dir, tt.f, &TrialRestore{})
			if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
