package site

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// testSiteURL is the public URL of the test sites.
const testSiteURL = "https://example.org/"

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", s, err)
	}
	return u
}

func mustSiteRoot(t testing.TB, s string) siteRoot {
	t.Helper()
	r, err := newSiteRoot(mustURL(t, s))
	if err != nil {
		t.Fatalf("newSiteRoot(%q): %v", s, err)
	}
	return r
}

// writeFiles creates the files of a site in a new temporary directory and
// returns it. Keys are slash paths.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// htmlPage returns a minimal page with the given body.
func htmlPage(body string) string {
	return "<!DOCTYPE html>\n<html><head><title>t</title></head>\n<body>\n" + body + "\n</body></html>\n"
}
