package caddymodule

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// checkRecover restores the fixture's files from pages and compares them
// byte for byte with the originals.
func checkRecover(t *testing.T, f *fixture, pages map[string][]byte) {
	t.Helper()
	checkRecoverFiles(t, f.owner, pages, map[string]string{
		"app/index.php": filepath.Join(f.src, "app/index.php"), "app/app.conf": filepath.Join(f.src, "app/app.conf")})
}

// checkRecoverFiles restores a backup from pages with the owner key and
// compares restored files (relative paths) with originals (local paths).
func checkRecoverFiles(t *testing.T, owner []byte, pages map[string][]byte, files map[string]string) {
	t.Helper()
	seq := iter.Seq2[string, []byte](func(yield func(string, []byte) bool) {
		for name, b := range pages {
			if !yield(name, b) {
				return
			}
		}
	})
	out := filepath.Join(t.TempDir(), "out")
	if _, err := sitetest.RecoverPages(t, seq, lzrecover.Options{OwnerKey: owner, Out: out}); err != nil {
		t.Fatal(err)
	}
	for rel, orig := range files {
		want, _ := os.ReadFile(orig)
		got, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: restored %d bytes, want %d: %v", rel, len(got), len(want), err)
		}
	}
}

// TestRecoverFromServedPages: the planned pages served through the handler
// hold the whole backup.
func TestRecoverFromServedPages(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	pages := map[string][]byte{}
	for _, u := range f.opts.URLs {
		pages[u] = serve(t, h, &page{body: html}, "GET", u, nil).Body.Bytes()
	}
	checkRecover(t, f, pages)
}

// TestRecoverDespiteJunkSpellings: a bundle planned for pages not known
// yet (as self-building makes), a site of 300 linked posts behind
// file_server. Spellings of one post (//post0.html, ///post0.html, …)
// requested first are placed as that post, so the posts still hold the
// whole backup. Before the fix 3,000 junk spellings took every record,
// the 700 real pages then got 256 fixed block sets, and recovery failed.
func TestRecoverDespiteJunkSpellings(t *testing.T) {
	s := sitetest.NewSite(t)
	noise := make([]byte, 1<<20) // 512 blocks of 4 KiB, one per page
	rand.Read(noise)
	writeFile(t, s.Path("src/app/data.bin"), noise)
	o := s.Options("https://example.org/") // pages filled: the layout these tests were written for
	o.Includes = s.Include("app")
	o.MaxBlockBytes, o.PageBudget = 4096, 8192
	o.SiteDir, o.BundleDir, o.Carriers = "", s.Path("bundle"), 16 // generations for the module, no site
	o.Now = func() time.Time { return genTime }
	sitetest.Inject(t, o)
	const posts, junk = 300, 2000
	site := t.TempDir()
	var index strings.Builder
	index.WriteString("<html><body>")
	for i := range posts {
		writeFile(t, filepath.Join(site, fmt.Sprintf("post%d.html", i)), []byte(html))
		fmt.Fprintf(&index, `<a href="/post%d.html">%d</a>`, i, i)
	}
	index.WriteString("</body></html>")
	writeFile(t, filepath.Join(site, "index.html"), []byte(index.String()))
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "page_budget": 8192}, {"handler": "file_server", "root": %q}`, o.BundleDir, site))
	for i := range junk {
		get(t, "GET", "http://"+addr+strings.Repeat("/", 2+i%20)+fmt.Sprintf("post%d.html", i/20), nil)
	}
	pages := map[string][]byte{}
	for _, p := range append([]string{"/"}, func() (out []string) {
		for i := range posts {
			out = append(out, fmt.Sprintf("/post%d.html", i))
		}
		return out
	}()...) {
		_, pages["https://example.org"+p] = get(t, "GET", "http://"+addr+p, nil)
	}
	// Expected: the root and the posts restore the file.
	checkRecoverFiles(t, s.Owner.Marshal(), pages, map[string]string{"app/data.bin": s.Path("src/app/data.bin")})
}
