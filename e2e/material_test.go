package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
)

// manualDir is the Debian Reference's HTML directory in the cache.
func manualDir() string {
	return filepath.Join(e2etest.CacheDir(), "debian-reference/usr/share/debian-reference")
}

// needTool returns the path of a command or skips the test.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed; %s", name, e2etest.SetupHint)
	}
	return p
}

// needMaterial skips the test unless setup.sh has unpacked the packages.
func needMaterial(t *testing.T) {
	t.Helper()
	for _, p := range []string{filepath.Join(manualDir(), "index.en.html"), filepath.Join(e2etest.WordPressDir(), "wp-settings.php")} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is missing; %s", p, e2etest.SetupHint)
		}
	}
}

// manualPages lists the manual's English HTML pages, sorted.
func manualPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(manualDir(), "*.en.html"))
	if err != nil || len(pages) < 10 {
		t.Fatalf("the manual has %d English pages (%v); %s", len(pages), err, e2etest.SetupHint)
	}
	for i, p := range pages {
		pages[i] = filepath.Base(p)
	}
	return pages
}

// copyManual copies the manual's English pages, its stylesheet and images
// into a new site directory, adds an index.html root that links to the
// manual's own index, and returns the directory and the site's page paths
// ("/", "/index.en.html", …).
func copyManual(t *testing.T) (string, []string) {
	t.Helper()
	site := t.TempDir()
	urls := []string{"/"}
	for _, name := range manualPages(t) {
		copyFile(t, filepath.Join(manualDir(), name), filepath.Join(site, name))
		urls = append(urls, "/"+name)
	}
	copyFile(t, filepath.Join(manualDir(), "debian-reference.css"), filepath.Join(site, "debian-reference.css"))
	images, _ := filepath.Glob(filepath.Join(manualDir(), "images", "*"))
	for _, img := range images {
		copyFile(t, img, filepath.Join(site, "images", filepath.Base(img)))
	}
	root := `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Debian Reference</title></head>
<body><h1>Debian Reference</h1><p><a href="index.en.html">Debian Reference (English)</a></p></body></html>
`
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte(root), 0o644); err != nil {
		t.Fatal(err)
	}
	return site, urls
}

// copyFile copies a regular file, creating parent directories.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeStats counts a tree's regular files, their bytes, and its links.
func treeStats(t *testing.T, dir string) (files, links int, bytes int64) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			links++
		case d.Type().IsRegular():
			files++
			bytes += info.Size()
		}
		return nil
	})
	return files, links, bytes
}

// sameTree fails the test unless got holds exactly the entries of want:
// regular files with the same content and permissions, symbolic links
// with the same targets, directories.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	seen := map[string]bool{}
	var problems []string
	filepath.WalkDir(want, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, err.Error())
			return nil
		}
		rel, _ := filepath.Rel(want, p)
		seen[rel] = true
		if msg := sameEntry(p, filepath.Join(got, rel)); msg != "" {
			problems = append(problems, rel+": "+msg)
		}
		return nil
	})
	filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(got, p)
		if err == nil && !seen[rel] {
			problems = append(problems, rel+": not in the original")
		}
		return nil
	})
	if len(problems) > 0 {
		if len(problems) > 20 {
			problems = append(problems[:20], fmt.Sprintf("… and %d more", len(problems)-20))
		}
		t.Fatalf("%s differs from %s:\n%s", got, want, strings.Join(problems, "\n"))
	}
}

// sameEntry compares one entry; it returns what differs, or "".
func sameEntry(want, got string) string {
	wi, err := os.Lstat(want)
	if err != nil {
		return err.Error()
	}
	gi, err := os.Lstat(got)
	if err != nil {
		return "missing: " + err.Error()
	}
	switch {
	case wi.Mode().Type() != gi.Mode().Type():
		return fmt.Sprintf("type %v, want %v", gi.Mode().Type(), wi.Mode().Type())
	case wi.Mode()&fs.ModeSymlink != 0:
		wt, _ := os.Readlink(want)
		gt, _ := os.Readlink(got)
		if wt != gt {
			return fmt.Sprintf("link to %q, want %q", gt, wt)
		}
	case wi.Mode().IsRegular():
		if wi.Mode().Perm() != gi.Mode().Perm() {
			return fmt.Sprintf("mode %v, want %v", gi.Mode().Perm(), wi.Mode().Perm())
		}
		wb, _ := os.ReadFile(want)
		gb, _ := os.ReadFile(got)
		if string(wb) != string(gb) {
			return fmt.Sprintf("content differs (%d bytes, want %d)", len(gb), len(wb))
		}
	}
	return ""
}
