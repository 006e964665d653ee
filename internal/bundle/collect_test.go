package bundle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCollectNames checks entry names, types and the prefix handling.
func TestCollectNames(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{
		sDir("css", 0o755), sFile("css/site.css", []byte("body{}"), 0o644),
		sFile("index.php", []byte("<?php"), 0o644), sLink("abs", "/etc/hostname"),
	})
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"abs", "css", "css/site.css", "index.php"}},
		{"app/", []string{"app", "app/abs", "app/css", "app/css/site.css", "app/index.php"}},
		{"sites/app", []string{"sites/app", "sites/app/abs", "sites/app/css", "sites/app/css/site.css", "sites/app/index.php"}},
	} {
		entries, warnings, err := Collect(src, tc.prefix, CollectOptions{})
		if err != nil || len(warnings) != 0 {
			t.Fatalf("prefix %q: %v %v", tc.prefix, err, warnings)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
			if e.Name == tc.prefix+"abs" || strings.HasSuffix(e.Name, "/abs") {
				if e.Type != TypeSymlink || e.Linkname != "/etc/hostname" {
					t.Errorf("abs: %+v, want symlink to /etc/hostname", e)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.want) {
			t.Errorf("prefix %q: names %q, want %q", tc.prefix, names, tc.want)
		}
	}
}

// TestCollectSymlinkRoot follows a root that is a symbolic link to a
// directory, but no link below it.
func TestCollectSymlinkRoot(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, []spec{sFile("real/f", []byte("x"), 0o644), sLink("real/loop", "..")})
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	entries, _, err := Collect(link, "", CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("got %d entries, want f and loop (not followed)", len(entries))
	}
}

// TestCollectErrors lists the inputs Collect must refuse, each with an
// error naming the culprit.
func TestCollectErrors(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{sFile(`back\slash`, nil, 0o644)})
	file := filepath.Join(src, "plain")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		name, root, prefix, mention string
	}{
		{"missing root", filepath.Join(src, "nope"), "", "nope"},
		{"root is a file", file, "", "plain"},
		{"bad prefix", src, "../up", "../up"},
		{"unsafe file name", src, "", `back\\slash`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Collect(tc.root, tc.prefix, CollectOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("got %v, want an error mentioning %q", err, tc.mention)
			}
		})
	}
}

// TestCollectUnreadable injects open and read-directory failures, which
// permissions cannot provoke when the tests run as root.
func TestCollectUnreadable(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{sFile("ok", nil, 0o644), sFile("sub/secret", nil, 0o644)})
	t.Run("file", func(t *testing.T) {
		defer func(orig func(string) (*os.File, error)) { osOpen = orig }(osOpen)
		osOpen = func(p string) (*os.File, error) {
			if filepath.Base(p) == "secret" {
				return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
			}
			return os.Open(p)
		}
		_, _, err := Collect(src, "", CollectOptions{})
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "secret") {
			t.Errorf("got %v, want a permission error naming secret", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		defer func(orig func(string) ([]os.DirEntry, error)) { osReadDir = orig }(osReadDir)
		osReadDir = func(p string) ([]os.DirEntry, error) {
			if filepath.Base(p) == "sub" {
				return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
			}
			return os.ReadDir(p)
		}
		_, _, err := Collect(src, "", CollectOptions{})
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "sub") {
			t.Errorf("got %v, want a permission error naming sub", err)
		}
	})
}

// TestCollectUnreadablePermissions uses real permissions; root ignores
// them, so this only runs as an ordinary user (TestCollectUnreadable
// covers the same paths by injection).
func TestCollectUnreadablePermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: mode 000 does not stop root from reading; see TestCollectUnreadable")
	}
	src := t.TempDir()
	makeTree(t, src, []spec{sFile("locked", []byte("x"), 0)})
	_, _, err := Collect(src, "", CollectOptions{})
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "locked") {
		t.Errorf("got %v, want a permission error naming locked", err)
	}
}

// TestFileEntry checks single-file entries for command outputs.
func TestFileEntry(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dump.sql")
	os.WriteFile(p, []byte("CREATE TABLE t;"), 0o600)
	e, err := FileEntry("db/dump.sql", p)
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != TypeRegular || e.Size != 15 || e.Mode != 0o600 || e.Name != "db/dump.sql" {
		t.Errorf("entry %+v", e)
	}
	if _, err := FileEntry("/abs", p); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("absolute name: got %v, want ErrUnsafePath", err)
	}
	if _, err := FileEntry("d", dir); err == nil {
		t.Error("a directory was accepted as a file entry")
	}
}
