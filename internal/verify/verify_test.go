package verify_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyServerKey: the untouched site passes with server.key alone:
// every segment rebuildable, the manifest on the root and one-hop pages,
// clean signals, and no trial restore (the key cannot decrypt).
func TestVerifyServerKey(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	if !rep.Rebuildable || !rep.FromManifest || len(rep.Segments) < 2 || rep.Restore != nil {
		t.Fatalf("report %+v", rep)
	}
	for _, sg := range rep.Segments {
		if !sg.Rebuildable || sg.MinReachable < sg.K || sg.ShortStripes != 0 {
			t.Fatalf("segment %+v", sg)
		}
	}
	if !rep.Manifest.Root || rep.Manifest.OneHop == 0 || rep.Manifest.OneHopPages != 11 {
		t.Fatalf("manifest placement %+v", rep.Manifest)
	}
	if rep.Crawl.Pages != 12 || len(rep.Excluded) != 0 || rep.Rejected != 0 {
		t.Fatalf("crawl %+v, excluded %+v", rep.Crawl, rep.Excluded)
	}
	if len(rep.Hygiene) < 2 || rep.Hygiene[0].URL != s.URL {
		t.Fatalf("hygiene %+v", rep.Hygiene)
	}
	for _, h := range rep.Hygiene {
		if len(h.Problems) > 0 || h.LastModified == "" {
			t.Fatalf("hygiene of a plain file server: %+v", h)
		}
	}
}

// TestVerifyOwnerKey: with owner.key the generation is also restored and
// every file compared with the listing.
func TestVerifyOwnerKey(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	tmp := t.TempDir()
	o := s.VerifyOptions(s.Owner, true)
	o.TempDir = tmp
	rep, err := runVerify(t, o)
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	r := rep.Restore
	if r == nil || r.Segments != 2 || r.Files < 2 || r.Bytes != 20000+11 || len(r.Mismatches)+len(r.Skipped) != 0 {
		t.Fatalf("trial restore %+v", r)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the trial restore left %d entries in the temporary directory", len(left))
	}
}

// TestVerifyShort: blocks stripped from eight pages leave some stripes
// short: Verify fails with ErrShort and the report names exactly the
// stripes with fewer than k blocks left, with their counts.
func TestVerifyShort(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	k := map[string]int{}
	have := map[shard]bool{}
	for i := range 11 {
		p := filepath.Join(s.Site, fmt.Sprintf("p%d.html", i))
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i < 8 { // strip: the blocks on this page are gone
			shardsOf(t, page, k)
			if err := os.WriteFile(p, htmlblock.Strip(page), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, sh := range shardsOf(t, page, k) {
			have[sh] = true
		}
	}
	root, _ := os.ReadFile(filepath.Join(s.Site, "index.html"))
	for _, sh := range shardsOf(t, root, k) {
		have[sh] = true
	}
	left := map[string]map[int]int{} // segment → stripe → blocks left
	for sh := range have {
		if left[sh.seg] == nil {
			left[sh.seg] = map[int]int{}
		}
		left[sh.seg][sh.stripe]++
	}
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if !errors.Is(err, verify.ErrShort) || rep.Rebuildable {
		t.Fatalf("got %v, want ErrShort", err)
	}
	shortSeen := 0
	for _, sg := range rep.Segments {
		want := []verify.ShortStripe{}
		for j := range sg.Stripes {
			if n := left[sg.Name][j]; n < k[sg.Name] {
				want = append(want, verify.ShortStripe{Stripe: j, Reachable: n, Need: k[sg.Name]})
			}
		}
		got := append([]verify.ShortStripe{}, sg.Short...)
		if fmt.Sprint(got) != fmt.Sprint(want) || sg.ShortStripes != len(want) || sg.Rebuildable != (len(want) == 0) {
			t.Fatalf("segment %s: short %+v (%d), want %+v", sg.Name, got, sg.ShortStripes, want)
		}
		for _, st := range want {
			shortSeen++
			msg := fmt.Sprintf("stripe %d: %d of %d blocks reachable (%d short)", st.Stripe, st.Reachable, st.Need, st.Need-st.Reachable)
			if shortSeen <= 3 && !strings.Contains(err.Error(), msg) {
				t.Fatalf("error %q does not say %q", err, msg)
			}
		}
	}
	if shortSeen == 0 {
		t.Fatal("stripping eight pages left no stripe short: the test proves nothing")
	}
}

// TestVerifyExcluded: after inject, the site changes so that one carrier
// is disallowed by robots.txt for CCBot, one is marked noarchive, one is
// served with X-Robots-Tag: noindex, one is no longer linked, and one
// grows past 1 MiB before its blocks. Each is reported under its reason,
// with every block of the generation it holds.
func TestVerifyExcluded(t *testing.T) {
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/p3.html" {
				w.Header().Set("X-Robots-Tag", "noindex")
			}
			h.ServeHTTP(w, r)
		})
	})
	edit := func(name, old, new string) []byte {
		p := filepath.Join(s.Site, name)
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(page, []byte(old)) {
			t.Fatalf("%s has no %q", name, old)
		}
		sitetest.WriteFile(t, s.Site, name, bytes.Replace(page, []byte(old), []byte(new), 1))
		return page
	}
	// p1 is disallowed for both archives (ia_archiver's group, and "*"
	// for CCBot; archive.org_bot is allowed, but the Internet Archive
	// heeds ia_archiver too), p6 for CCBot only: the Internet Archive
	// keeps p6, so its blocks count.
	sitetest.WriteFile(t, s.Site, "robots.txt", []byte("User-agent: ia_archiver\nDisallow: /p1.html\n\nUser-agent: *\nDisallow: /p1.html\nDisallow: /p6.html\n\nUser-agent: archive.org_bot\nAllow: /\n"))
	edit("p2.html", "<body>", `<body><meta name="robots" content="noarchive">`)
	edit("index.html", `<a href="p4.html">4</a>`, "")
	edit("p5.html", "<body>", "<body><p>"+strings.Repeat("lorem ipsum ", 100_000)+"</p>")
	want := map[string]string{
		"p1.html": "robots.txt disallows it for ia_archiver, CCBot",
		"p2.html": "noarchive",
		"p3.html": "noindex",
		"p4.html": "unlinked",
		"p5.html": "truncated",
	}
	for _, owner := range []bool{false, true} {
		t.Run(fmt.Sprintf("owner=%v", owner), func(t *testing.T) {
			o := s.VerifyOptions(s.Server, false)
			if owner {
				o = s.VerifyOptions(s.Owner, true) // the listing names the unlinked carrier
			} else {
				o.SiteDir = s.Site // the site's files show the unlinked carrier
			}
			rep, err := runVerify(t, o)
			if err != nil && !errors.Is(err, verify.ErrShort) {
				t.Fatal(err)
			}
			got := map[string]verify.ExcludedPage{}
			for _, e := range rep.Excluded {
				got[strings.TrimPrefix(e.URL, s.URL)] = e
			}
			if len(got) != len(want) {
				t.Fatalf("excluded %+v", rep.Excluded)
			}
			for name, reason := range want {
				e := got[name]
				page, _ := os.ReadFile(filepath.Join(s.Site, name))
				n := len(shardsOf(t, page, map[string]int{}))
				if !strings.HasPrefix(e.Reason, reason) || e.Blocks != n || n == 0 || e.Only > e.Blocks {
					t.Errorf("%s: %+v, want reason %q and %d blocks", name, e, reason, n)
				}
			}
			if rep.Crawl.Unlinked != 1 {
				t.Errorf("unlinked pages read: %d", rep.Crawl.Unlinked)
			}
		})
	}
}

// TestVerifyRedirectsAndQueries: a carrier reached through a redirect,
// and one linked with a query string, are crawled like any other; with
// SkipQuery the second is not, and the skipped link is counted.
func TestVerifyRedirectsAndQueries(t *testing.T) {
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/old.html" {
				http.Redirect(w, r, "/p0.html", http.StatusMovedPermanently)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	root, err := os.ReadFile(filepath.Join(s.Site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	root = bytes.Replace(root, []byte(`href="p0.html"`), []byte(`href="old.html"`), 1)
	root = bytes.Replace(root, []byte(`href="p1.html"`), []byte(`href="p1.html?from=home"`), 1)
	sitetest.WriteFile(t, s.Site, "index.html", root)
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil || rep.Crawl.Pages != 12 || rep.Crawl.Requests != 13 || rep.Crawl.Queries != 0 {
		t.Fatalf("%v, crawl %+v", err, rep.Crawl)
	}
	o := s.VerifyOptions(s.Server, false)
	o.SkipQuery = true
	rep, _ = runVerify(t, o)
	if rep.Crawl.Pages != 11 || rep.Crawl.Queries != 1 {
		t.Fatalf("with SkipQuery: crawl %+v", rep.Crawl)
	}
}

// TestVerifyHygiene: a server whose pages change on every GET (a
// timestamp), and one that sends an ETag but ignores If-None-Match, are
// reported; the blocks are still fine.
func TestVerifyHygiene(t *testing.T) {
	stamp := func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			fmt.Fprintf(w, "<!-- served %d -->", time.Now().UnixNano())
		})
	}
	ignoring := func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("If-None-Match")
			r.Header.Del("If-Modified-Since")
			w.Header().Set("ETag", `"v1"`)
			h.ServeHTTP(w, r)
		})
	}
	tests := []struct {
		name string
		wrap func(string, http.Handler) http.Handler
		want string
	}{
		{"timestamp", stamp, "two GETs gave different bytes"},
		{"no 304", ignoring, "If-None-Match: the ETag was answered 200, not 304"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sitetest.ServedInjected(t, tt.wrap)
			rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Hygiene) < 2 {
				t.Fatalf("hygiene %+v", rep.Hygiene)
			}
			for _, h := range rep.Hygiene {
				if !strings.Contains(strings.Join(h.Problems, "\n"), tt.want) {
					t.Fatalf("%s: problems %q, want %q", h.URL, h.Problems, tt.want)
				}
			}
		})
	}
}

// TestVerifyWrongKey: a key that signed nothing on the site finds no
// generation, and says why.
func TestVerifyWrongKey(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	_, other, _ := keys.Generate(true)
	rep, err := runVerify(t, s.VerifyOptions(other.Marshal(), false))
	if !errors.Is(err, verify.ErrNoGeneration) || !strings.Contains(err.Error(), "none signed by this key") || rep.Foreign == 0 {
		t.Fatalf("got %v", err)
	}
}

// TestVerifyOptions: bad options are errors before any request.
func TestVerifyOptions(t *testing.T) {
	_, server, _ := keys.Generate(true)
	owner, _, _ := keys.Generate(true)
	tests := []struct {
		name string
		o    verify.Options
		want string
	}{
		{"no URL", verify.Options{ServerKey: server.Marshal()}, "not an absolute http(s) URL"},
		{"relative URL", verify.Options{SiteURL: "example.org", ServerKey: server.Marshal()}, "not an absolute"},
		{"query", verify.Options{SiteURL: "http://127.0.0.1:1/?a=b", ServerKey: server.Marshal()}, "without query"},
		{"no key", verify.Options{SiteURL: "http://127.0.0.1:1/"}, "exactly one of"},
		{"two keys", verify.Options{SiteURL: "http://127.0.0.1:1/", ServerKey: server.Marshal(), OwnerKey: owner.Marshal()}, "exactly one of"},
		{"owner key as server key", verify.Options{SiteURL: "http://127.0.0.1:1/", ServerKey: owner.Marshal()}, "server"},
		{"negative bound", verify.Options{SiteURL: "http://127.0.0.1:1/", ServerKey: server.Marshal(), MaxPages: -1}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := verify.Run(context.Background(), tt.o)
			if err == nil || rep != nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, %v; want an error saying %q", rep, err, tt.want)
			}
		})
	}
}

// TestVerifyHostile: a site of endless links, endless pages and redirect
// loops keeps the crawl within its bounds, in requests and bytes, and
// ends with a report.
func TestVerifyHostile(t *testing.T) {
	endless := regexp.MustCompile(`^/n/(\d+)$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch p := r.URL.Path; {
		case p == "/":
			fmt.Fprint(w, `<a href="/n/0">n</a><a href="/huge">h</a><a href="/loop/a">l</a><a href="/q?x=0">q</a>`)
		case endless.MatchString(p):
			n := endless.FindStringSubmatch(p)[1]
			for i := range 50 {
				fmt.Fprintf(w, `<a href="/n/%s%d">x</a>`, n, i)
			}
		case p == "/huge":
			chunk := bytes.Repeat([]byte("<p>huge</p>"), 10_000)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case p == "/loop/a":
			http.Redirect(w, r, "/loop/b", http.StatusFound)
		case p == "/loop/b":
			http.Redirect(w, r, "/loop/a", http.StatusFound)
		case p == "/q":
			fmt.Fprintf(w, `<a href="/q?x=%s1">more</a>`, r.URL.Query().Get("x"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	_, server, _ := keys.Generate(true)
	const maxBytes = 48 << 20
	o := verify.Options{SiteURL: srv.URL + "/", ServerKey: server.Marshal(), MaxPages: 300, MaxBytes: maxBytes, Rate: 600000}
	start := time.Now()
	rep, err := runVerify(t, o)
	if !errors.Is(err, verify.ErrNoGeneration) {
		t.Fatalf("got %v, want ErrNoGeneration", err)
	}
	c := rep.Crawl
	if c.Requests > 300 || c.Limit == "" || c.Bytes > maxBytes+2*source.DefaultMaxCapture {
		t.Fatalf("crawl not bounded: %+v", c)
	}
	if !strings.Contains(strings.Join(c.Failed, "\n"), "/loop/b: redirect loop through") {
		t.Fatalf("the redirect loop is not reported: %q", c.Failed)
	}
	t.Logf("%d requests, %d bytes in %v", c.Requests, c.Bytes, time.Since(start))
}

// BenchmarkVerify_200Pages measures a whole verify of a 200-page site
// carrying 2 MiB in 48 KiB blocks, with server.key (crawl, signature
// checks, signal checks of 21 pages) and with owner.key (plus the trial
// restore). Bytes are the pages crawled.
func BenchmarkVerify_200Pages(b *testing.B) {
	s := sitetest.Serve(b, 199, 2<<20, 48<<10, nil)
	for _, owner := range []bool{false, true} {
		name, key := "server", s.Server
		if owner {
			name, key = "owner", s.Owner
		}
		b.Run(name, func(b *testing.B) {
			o := s.VerifyOptions(key, owner)
			o.TempDir = b.TempDir()
			for b.Loop() {
				rep, err := verify.Run(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(rep.Crawl.Bytes)
				b.ReportMetric(float64(rep.Crawl.Requests), "pages")
			}
		})
	}
}

// TestVerifySiteURLMismatch: a site whose generations were made for
// another URL (here 127.0.0.1:PORT, verified as localhost:PORT) is still
// rebuildable — recover and status fall back to it while no generation
// names the site — but verify warns, naming both URLs.
func TestVerifySiteURLMismatch(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil || slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "was made for") }) {
		t.Fatalf("the site's own URL: %v, warnings %q", err, rep.Warnings)
	}
	o := s.VerifyOptions(s.Server, false)
	o.SiteURL = strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	rep, err = runVerify(t, o)
	if err != nil || !rep.Rebuildable {
		t.Fatalf("verified as %s: %v, rebuildable %v", o.SiteURL, err, rep != nil && rep.Rebuildable)
	}
	want := "the newest generation was made for " + s.URL + ", not " + o.SiteURL
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
		t.Errorf("warnings %q, want one saying %q", rep.Warnings, want)
	}
}
