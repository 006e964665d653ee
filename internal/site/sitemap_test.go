package site

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/sitemap/*.golden")

// changedAt is the time the test pages changed.
var changedAt = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// testChanged returns the changed pages of the sitemap tests.
func testChanged() map[string]time.Time {
	return map[string]time.Time{
		"/":               changedAt,
		"/about/":         changedAt.In(time.FixedZone("X", 3600)), // written in UTC
		"/blog/post.html": changedAt.Add(500 * time.Millisecond),   // to the second
		"/same.html":      changedAt,
		"/q":              changedAt,
		"/a.html":         changedAt,
	}
}

// TestUpdateSitemap_Golden updates each testdata/sitemap/*.xml and
// compares with its .golden file, then checks that a second update changes
// nothing.
func TestUpdateSitemap_Golden(t *testing.T) {
	stamps, err := lastmods(testChanged())
	if err != nil {
		t.Fatal(err)
	}
	site := mustSiteRoot(t, testSiteURL)
	wantN := map[string]int{"normal": 3, "crlf-prefix": 1, "one-line": 2, "self-closing": 2, "bom-cdata": 2, "index": 0}
	paths, _ := filepath.Glob("testdata/sitemap/*.xml")
	if len(paths) != len(wantN) {
		t.Fatalf("%d sitemaps in testdata, want %d", len(paths), len(wantN))
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".xml")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out, n, err := updateSitemap(in, site, stamps)
			if err != nil {
				t.Fatal(err)
			}
			if n != wantN[name] {
				t.Errorf("updated %d entries, want %d", n, wantN[name])
			}
			checkGolden(t, strings.TrimSuffix(p, ".xml")+".golden", out)
			again, n, err := updateSitemap(out, site, stamps)
			if err != nil || n != 0 || !bytes.Equal(again, out) {
				t.Errorf("second update: %d entries, err %v, same bytes %v", n, err, bytes.Equal(again, out))
			}
			if same, _, _ := updateSitemap(in, site, nil); !bytes.Equal(same, in) {
				t.Error("no changes changed the bytes")
			}
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}

// TestUpdateSitemap_Preserves checks byte for byte that only the lastmod
// text changes in a sitemap whose every entry has one.
func TestUpdateSitemap_Preserves(t *testing.T) {
	in := "<?xml version='1.0'?>\n<!DOCTYPE x>\n<urlset  a = 'b' >\r\n <url>\t<loc> https://example.org/ </loc>" +
		"<lastmod>1999-12-31</lastmod><x:ext xmlns:x='u'>&amp;</x:ext></url>\n<url><loc>https://example.org/b</loc>" +
		"<lastmod>1999-12-31</lastmod></url></urlset>  <!-- end -->\n"
	want := strings.Replace(in, "1999-12-31", "2026-11-21T10:00:00Z", 1)
	stamps, _ := lastmods(map[string]time.Time{"/": changedAt})
	out, n, err := updateSitemap([]byte(in), mustSiteRoot(t, testSiteURL), stamps)
	if err != nil || n != 1 || string(out) != want {
		t.Errorf("got %d, %v:\n%s\nwant:\n%s", n, err, out, want)
	}
}

func TestUpdateSitemap_Errors(t *testing.T) {
	site := mustSiteRoot(t, testSiteURL)
	stamps, _ := lastmods(map[string]time.Time{"/": changedAt})
	for _, in := range []string{
		"<urlset><url><loc>https://example.org/</loc></url>",              // unclosed
		"<urlset><url><loc>https://example.org/</lastmod></url></urlset>", // mismatched
		"<urlset>&nbsp;</urlset>",                                         // undefined entity
		"<?xml version='1.0' encoding='ISO-8859-1'?><urlset/>",            // not UTF-8
	} {
		if _, _, err := updateSitemap([]byte(in), site, stamps); err == nil {
			t.Errorf("updateSitemap(%q) succeeded", in)
		}
	}
	for name, changed := range map[string]map[string]time.Time{
		"relative key": {"about/": changedAt},
		"query key":    {"/a?b": changedAt},
		"zero time":    {"/": {}},
	} {
		if _, err := lastmods(changed); err == nil {
			t.Errorf("%s: lastmods succeeded", name)
		}
	}
}

// TestUpdateSitemap_File checks the file handling: count, mode kept,
// untouched when nothing changes, and no sitemap at all.
func TestUpdateSitemap_File(t *testing.T) {
	in, err := os.ReadFile("testdata/sitemap/normal.xml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "sitemap.xml")
	if err := os.WriteFile(p, in, 0o640); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, past, past); err != nil {
		t.Fatal(err)
	}
	site := mustURL(t, testSiteURL)

	// Nothing of the sitemap changed: the file stays as it is.
	n, err := UpdateSitemap(dir, site, map[string]time.Time{"/same.html": changedAt, "/elsewhere/": changedAt})
	if err != nil || n != 0 {
		t.Fatalf("UpdateSitemap: %d, %v", n, err)
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.ModTime().Equal(past) {
		t.Fatalf("unchanged sitemap was written: %v, %v", fi.ModTime(), err)
	}

	n, err = UpdateSitemap(dir, site, testChanged())
	if err != nil || n != 3 {
		t.Fatalf("UpdateSitemap: %d, %v", n, err)
	}
	fi, err = os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v; want 0640", fi.Mode(), err)
	}
	out, _ := os.ReadFile(p)
	checkGolden(t, "testdata/sitemap/normal.golden", out)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want only sitemap.xml", len(entries))
	}

	if n, err := UpdateSitemap(t.TempDir(), site, testChanged()); n != 0 || err != nil {
		t.Errorf("without sitemap: %d, %v", n, err)
	}
	if _, err := UpdateSitemap(dir, nil, testChanged()); err == nil {
		t.Error("nil site URL accepted")
	}
}
