package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/ignore"
)

// collectNames collects src under prefix with exclude and returns the
// sorted entry names.
func collectNames(t *testing.T, src, prefix string, exclude func(string, bool) bool) []string {
	t.Helper()
	entries, warnings, err := Collect(src, prefix, CollectOptions{Exclude: exclude})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Collect: %v, warnings %v", err, warnings)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return names
}

// TestCollectExclude checks what Exclude is asked (paths without the
// prefix, directory flags, nothing below an excluded directory) and that
// excluded objects are absent.
func TestCollectExclude(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{
		sFile("index.php", nil, 0o644), sFile("debug.log", nil, 0o644),
		sFile("cache/a/b", nil, 0o644), sFile("lib/x.log", nil, 0o644),
		sLink("lib/link", "../cache"),
	})
	asked := map[string]bool{}
	exclude := func(rel string, isDir bool) bool {
		asked[rel] = isDir
		return rel == "cache" || filepath.Ext(rel) == ".log"
	}
	got := collectNames(t, src, "app", exclude)
	want := []string{"app", "app/index.php", "app/lib", "app/lib/link"}
	if !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	wantAsked := map[string]bool{
		"index.php": false, "debug.log": false, "cache": true, "lib": true,
		"lib/x.log": false, "lib/link": false, // a link to a directory is not one
	}
	if fmt.Sprint(asked) != fmt.Sprint(wantAsked) {
		t.Errorf("Exclude was asked %v, want %v", asked, wantAsked)
	}
	if got := collectNames(t, src, "", nil); len(got) != 8 {
		t.Errorf("nil Exclude: got %q, want all 8 objects", got)
	}
}

// TestCollectExcludedNotRead checks that an excluded directory is not
// read, so that its failures do not matter, and that an excluded object
// with an unusable name is no error.
func TestCollectExcludedNotRead(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{sFile("ok", nil, 0o644), sFile("secret/key", nil, 0o600), sFile(`back\slash`, nil, 0o644)})
	defer func(orig func(string) ([]os.DirEntry, error)) { osReadDir = orig }(osReadDir)
	osReadDir = func(p string) ([]os.DirEntry, error) {
		if filepath.Base(p) == "secret" {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		}
		return os.ReadDir(p)
	}
	exclude := func(rel string, _ bool) bool { return rel == "secret" || rel == `back\slash` }
	// Expected: no error, only "ok" (without Exclude both objects fail).
	if got := collectNames(t, src, "", exclude); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("names %q, want only ok", got)
	}
	if _, _, err := Collect(src, "", CollectOptions{}); err == nil {
		t.Error("test bug: the unreadable directory was collected without an error")
	}
}

// TestCollectExcludedPermissions uses a real mode-000 directory; root
// ignores permissions, so this only runs as an ordinary user
// (TestCollectExcludedNotRead covers the same by injection).
func TestCollectExcludedPermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: mode 000 does not stop root from reading; see TestCollectExcludedNotRead")
	}
	src := t.TempDir()
	makeTree(t, src, []spec{sFile("ok", nil, 0o644), sFile("locked/f", nil, 0o644), sDir("locked", 0)})
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "locked"), 0o755) })
	got := collectNames(t, src, "", func(rel string, isDir bool) bool { return rel == "locked" && isDir })
	if !slices.Equal(got, []string{"ok"}) {
		t.Errorf("names %q, want only ok", got)
	}
}

// TestCollectIgnoreMatcher runs gitignore-style patterns end to end,
// including negation and the rule that nothing below an excluded
// directory comes back.
func TestCollectIgnoreMatcher(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{
		sFile("index.php", nil, 0o644), sFile("x.log", nil, 0o644), sFile("keep.log", nil, 0o644),
		sFile("sub/y.log", nil, 0o644), sFile("sub/keep.log", nil, 0o644),
		sFile("vendor/lib.php", nil, 0o644), sLink("sub/vendor", "../vendor"),
		sFile("cache/a/b", nil, 0o644), sFile("sub/cache/c", nil, 0o644),
		sFile("build/keep", nil, 0o644), sFile("build/other", nil, 0o644),
	})
	m, err := ignore.New([]string{"*.log", "!keep.log", "vendor/", "/cache/**", "build/", "!build/keep"})
	if err != nil {
		t.Fatal(err)
	}
	got := collectNames(t, src, "", m.Match)
	want := []string{
		"cache",                 // "/cache/**" excludes what is inside, not cache itself
		"index.php", "keep.log", // "!keep.log" includes it again
		"sub", "sub/cache", "sub/cache/c", // "/cache/**" is anchored
		"sub/keep.log", "sub/vendor", // "vendor/" matches directories only
		// build/keep is gone: its parent is excluded.
	}
	if !slices.Equal(got, want) {
		t.Errorf("names %q\nwant %q", got, want)
	}
}
