package site

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestDiscover_TestSite crawls testdata/site, which has one page for each
// rule, and checks every field of the result.
func TestDiscover_TestSite(t *testing.T) {
	s, err := Discover("testdata/site", Options{SiteURL: mustURL(t, testSiteURL), MaxPageBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		url, file string
		depth     int
		reason    string
		aliases   []string
	}
	want := []row{
		{"/", "index.html", 0, "", []string{"/index.html"}},
		{"/about/", "about/index.html", 1, "", nil},
		{"/area.html", "area.html", 1, "", nil},
		{"/big.html", "big.html", 1, "too large (5.7 KiB, limit 4 KiB)", nil},
		{"/caf%C3%A9.html", "café.html", 1, "", nil},
		{"/ccbot-blocked.html", "ccbot-blocked.html", 1, "robots.txt disallows it for CCBot", nil},
		{"/contact.html", "contact.html", 1, "", nil}, // googlebot meta is irrelevant
		{"/docs/", "docs/index.html", 1, "", nil},
		{"/ia-only/page.html", "ia-only/page.html", 1, "robots.txt disallows it for ia_archiver", nil},
		{"/iframe.html", "iframe.html", 1, "", nil},
		{"/injected.html", "injected.html", 1, "", nil}, // 4746 bytes, small once stripped
		{"/noarchive.html", "noarchive.html", 1, "noarchive for CCBot", nil},
		{"/nofollow.html", "nofollow.html", 1, "noindex", nil},
		{"/noindex.html", "noindex.html", 1, "noindex", nil},
		{"/private/secret.html", "private/secret.html", 1, "robots.txt disallows it for *", nil},
		{"/about/framed.html", "about/framed.html", 2, "", nil},
		{"/about/team.html", "about/team.html", 2, "", nil},
		{"/blog/", "blog/index.html", 2, "", nil},
		{"/docs/guide.html", "docs/guide.html", 2, "", nil}, // relative to /docs/ after the redirect
		{"/only-from-noindex.html", "only-from-noindex.html", 2, "", nil},
		{"/blog/posts/first.html", "blog/posts/first.html", 3, "", nil}, // through <base href>
		{"/root-escape.html", "root-escape.html", 3, "", nil},           // "../" stops at the root
		{"/blog/posts/second.html", "blog/posts/second.html", 4, "", nil},
	}
	var got []row
	for _, p := range s.Pages {
		got = append(got, row{p.URL, p.File, p.Depth, p.Reason, p.Aliases})
		if p.Carrier != (p.Reason == "") {
			t.Errorf("%s: Carrier %v with reason %q", p.URL, p.Carrier, p.Reason)
		}
		fi, err := os.Stat(filepath.Join("testdata/site", p.File))
		if err != nil {
			t.Fatal(err)
		}
		if p.File != "injected.html" && p.Size != fi.Size() {
			t.Errorf("%s: Size %d, file has %d bytes", p.URL, p.Size, fi.Size())
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages:\n%s\nwant:\n%s", rowsString(got), rowsString(want))
	}
	if n := len(s.Carriers()); n != 16 {
		t.Errorf("%d carriers, want 16", n)
	}
	wantUnlinked := []string{"hidden-by-nofollow.html", "orphan/index.htm", "private/linked-from-private.html",
		"query-only.html", "template-only.html", "unlinked.html"}
	if !slices.Equal(s.Unlinked, wantUnlinked) {
		t.Errorf("Unlinked = %q, want %q", s.Unlinked, wantUnlinked)
	}
	wantSkipped := []string{"/a%2Fb.html", "/etc/passwd", "/missing.html", "/query-only.html?x=1", "/search?q=x"}
	if !slices.Equal(s.Skipped, wantSkipped) {
		t.Errorf("Skipped = %q, want %q", s.Skipped, wantSkipped)
	}
}

func rowsString[T any](rows []T) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "\t%+v\n", r)
	}
	return b.String()
}

// TestDiscover_Size checks that Size is measured without Lazarus comments.
func TestDiscover_Size(t *testing.T) {
	s, err := Discover("testdata/site", Options{SiteURL: mustURL(t, testSiteURL), MaxPageBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(s.Pages, func(p Page) bool { return p.File == "injected.html" })
	if i < 0 {
		t.Fatal("injected.html not found")
	}
	want := int64(len(htmlPageOf(t, "testdata/site/injected.html")))
	if got := s.Pages[i].Size; got != want || got >= 4096 {
		t.Errorf("Size = %d, want %d (stripped)", got, want)
	}
}

// htmlPageOf returns the file without its Lazarus comment, as written by
// the test data generator: everything from "<!-- lazarus" to "-->\n".
func htmlPageOf(t *testing.T, name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- lazarus")
	j := strings.Index(s, "-->\n")
	if i < 0 || j < i {
		t.Fatalf("%s has no lazarus comment", name)
	}
	return s[:i] + s[j+len("-->\n"):]
}

// TestDiscover_Deterministic runs Discover twice and compares.
func TestDiscover_Deterministic(t *testing.T) {
	opts := Options{SiteURL: mustURL(t, testSiteURL), MaxPageBytes: 4096}
	a, err := Discover("testdata/site", opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Discover("testdata/site", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs differ")
	}
}

// TestDiscover_Agents checks that only the configured agents' rules and
// metas count.
func TestDiscover_Agents(t *testing.T) {
	s, err := Discover("testdata/site", Options{SiteURL: mustURL(t, testSiteURL), Agents: []string{"ia_archiver"}})
	if err != nil {
		t.Fatal(err)
	}
	reasons := make(map[string]string)
	for _, p := range s.Pages {
		reasons[p.URL] = p.Reason
	}
	for url, want := range map[string]string{
		"/ccbot-blocked.html":  "", // the CCBot group does not apply
		"/noarchive.html":      "", // nor the CCBot meta
		"/ia-only/page.html":   "robots.txt disallows it for ia_archiver",
		"/private/secret.html": "robots.txt disallows it for ia_archiver",
		"/big.html":            "", // under the default limit
	} {
		if got, ok := reasons[url]; !ok || got != want {
			t.Errorf("%s: reason %q (found %v), want %q", url, got, ok, want)
		}
	}
}

// errNone marks a test case that must succeed.
var errNone = errors.New("no error")

func TestDiscover_Errors(t *testing.T) {
	site := mustURL(t, testSiteURL)
	tests := []struct {
		name string
		dir  string
		opts Options
		want error // nil: any error; errNone: success
	}{
		{"no root page", writeFiles(t, map[string]string{"about.html": "x"}), Options{SiteURL: site}, ErrNoRoot},
		{"missing directory", filepath.Join(t.TempDir(), "nope"), Options{SiteURL: site}, nil},
		{"no site URL", "testdata/site", Options{}, nil},
		{"relative site URL", "testdata/site", Options{SiteURL: mustURL(t, "/x/")}, nil},
		{"ftp site URL", "testdata/site", Options{SiteURL: mustURL(t, "ftp://example.org/")}, nil},
		{"site URL with query", "testdata/site", Options{SiteURL: mustURL(t, "https://example.org/?a")}, nil},
		{"bad agent", "testdata/site", Options{SiteURL: site, Agents: []string{"CC Bot"}}, nil},
		{"empty agent", "testdata/site", Options{SiteURL: site, Agents: []string{""}}, nil},
		{"negative size", "testdata/site", Options{SiteURL: site, MaxPageBytes: -1}, nil},
		{"size over the read limit", "testdata/site", Options{SiteURL: site, MaxPageBytes: maxReadBytes + 1}, nil},
		{"negative pages", "testdata/site", Options{SiteURL: site, MaxPages: -1}, nil},
		{"too many pages", "testdata/site", Options{SiteURL: site, MaxPages: 5}, ErrTooManyPages},
		{"just enough", writeFiles(t, manyFiles(16)), Options{SiteURL: site, MaxPages: 1}, errNone},
		{"too many linked URLs", writeFiles(t, map[string]string{"index.html": manyLinks(9)}),
			Options{SiteURL: site, MaxPages: 1}, ErrTooManyPages},
		{"too many entries", writeFiles(t, manyFiles(17)), Options{SiteURL: site, MaxPages: 1}, ErrTooManyPages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Discover(tt.dir, tt.opts)
			if tt.want == errNone {
				if err != nil {
					t.Fatalf("Discover: %v", err)
				}
				return
			}
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Discover: %v, want %v", err, tt.want)
			}
		})
	}
}

// manyLinks returns a page with n links to missing pages.
func manyLinks(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<a href=\"missing%d.html\">%d</a>\n", i, i)
	}
	return htmlPage(b.String())
}

// manyFiles returns a site of an unlinked root page and n-1 other files.
func manyFiles(n int) map[string]string {
	files := map[string]string{"index.html": htmlPage("alone")}
	for i := range n - 1 {
		files[fmt.Sprintf("f%d.txt", i)] = "x"
	}
	return files
}

// TestDiscover_SubdirSite checks the index.htm fallback and a site below
// the host's root.
func TestDiscover_SubdirSite(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"index.htm": htmlPage(`<a href="/~u/a.html">a</a> <a href="../outside.html">out</a> <a href="/~u">root</a>
			<a href="https://example.org/">host root</a> <a href="../../~u/b/">b</a>`),
		"a.html":       htmlPage(`a`),
		"b/index.html": htmlPage(`b`),
		"outside.html": htmlPage(`not on the site`),
		"robots.txt":   "User-agent: *\nDisallow: /~u/b/\n",
	})
	s, err := Discover(dir, Options{SiteURL: mustURL(t, "https://example.org/~u")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Pages {
		got = append(got, fmt.Sprintf("%s %s %d %q", p.URL, p.File, p.Depth, p.Reason))
	}
	want := []string{
		`/ index.htm 0 ""`,
		`/a.html a.html 1 ""`,
		`/b/ b/index.html 1 "robots.txt disallows it for *"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(s.Unlinked, []string{"outside.html"}) || len(s.Skipped) != 0 {
		t.Errorf("Unlinked %q, Skipped %q", s.Unlinked, s.Skipped)
	}
}

// TestDiscover_Mapping checks how URLs map to files.
func TestDiscover_Mapping(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"index.html": htmlPage(`<a href="plain">x.html fallback</a> <a href="dir">redirect</a>
			<a href="dir/">index</a> <a href="UPPER.HTM">upper</a> <a href="page.xhtml">xhtml</a>
			<a href="data">a file without extension</a> <a href="nodir/">missing index</a>
			<a href="emptydir">directory without index</a> <a href="a%20b.html">space</a>
			<a href="a b.html">raw space</a> <a href="%7Euser.html">tilde</a> <a href="x//y.html">double slash</a>
			<a href="dir/sub">nested redirect</a> <a href="plain?">empty query</a>`),
		"plain.html":         htmlPage(`<a href="dir/index.html">alias</a>`),
		"dir/index.html":     htmlPage(`<a href="../plain">back</a>`),
		"dir/sub/index.htm":  htmlPage(`sub`),
		"UPPER.HTM":          htmlPage(`upper`),
		"page.xhtml":         htmlPage(`xhtml`),
		"data":               "not html",
		"emptydir/.keep":     "",
		"a b.html":           htmlPage(`space`),
		"~user.html":         htmlPage(`tilde`),
		"x/y.html":           htmlPage(`double slash`),
		"nodir/readme.txt":   "no index",
		"dir/sub/extra.HTML": htmlPage(`unlinked`),
	})
	s, err := Discover(dir, Options{SiteURL: mustURL(t, "http://example.org/")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Pages {
		got = append(got, fmt.Sprintf("%s=%s@%d%v", p.URL, p.File, p.Depth, p.Aliases))
	}
	want := []string{
		"/=index.html@0[]",
		"/UPPER.HTM=UPPER.HTM@1[]",
		"/a%20b.html=a b.html@1[]",
		"/dir/=dir/index.html@1[/dir/index.html]",
		"/dir/sub/=dir/sub/index.htm@1[]",
		"/page.xhtml=page.xhtml@1[]",
		"/plain=plain.html@1[]",
		"/~user.html=~user.html@1[]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantSkipped := []string{"/emptydir", "/nodir/", "/plain?", "/x//y.html"}
	if !slices.Equal(s.Skipped, wantSkipped) {
		t.Errorf("Skipped = %q, want %q", s.Skipped, wantSkipped)
	}
	if !slices.Equal(s.Unlinked, []string{"dir/sub/extra.HTML", "x/y.html"}) {
		t.Errorf("Unlinked = %q", s.Unlinked)
	}
}

// TestDiscover_Symlinks checks that symbolic links leaving the directory
// are not followed, and links inside it are.
func TestDiscover_Symlinks(t *testing.T) {
	outside := writeFiles(t, map[string]string{"secret.html": htmlPage("outside")})
	dir := writeFiles(t, map[string]string{
		"index.html": htmlPage(`<a href="out.html">out</a> <a href="in.html">in</a> <a href="outdir/secret.html">dir</a>`),
		"real.html":  htmlPage("real"),
	})
	links := map[string]string{
		"out.html": filepath.Join(outside, "secret.html"), // absolute, outside
		"outdir":   outside,
		"in.html":  "real.html", // relative, inside
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	s, err := Discover(dir, Options{SiteURL: mustURL(t, testSiteURL)})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range s.Pages {
		files = append(files, p.File)
	}
	if !slices.Equal(files, []string{"index.html", "in.html"}) {
		t.Errorf("pages %q, want index.html and in.html", files)
	}
	if !slices.Equal(s.Skipped, []string{"/out.html", "/outdir/secret.html"}) {
		t.Errorf("Skipped = %q", s.Skipped)
	}
	// real.html is reached only through the link in.html.
	if !slices.Equal(s.Unlinked, []string{"real.html"}) {
		t.Errorf("Unlinked = %q", s.Unlinked)
	}
}

// TestDiscover_RobotsBlockedRoot checks that a root disallowed for one
// agent is no carrier and that nothing beyond it is crawled.
func TestDiscover_RobotsBlockedRoot(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"index.html": htmlPage(`<a href="a.html">a</a>`),
		"a.html":     htmlPage(`a`),
		"robots.txt": "User-agent: CCBot\nDisallow: /\n",
	})
	s, err := Discover(dir, Options{SiteURL: mustURL(t, testSiteURL)})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pages) != 1 || s.Pages[0].Carrier || s.Pages[0].Reason != "robots.txt disallows it for CCBot" {
		t.Fatalf("pages %+v", s.Pages)
	}
	if !slices.Equal(s.Unlinked, []string{"a.html"}) {
		t.Errorf("Unlinked = %q", s.Unlinked)
	}
}

// TestDiscover_PreferAllowedURL checks that a file linked by a disallowed
// and an allowed URL is a carrier at the allowed one, and that its links
// are followed from there.
func TestDiscover_PreferAllowedURL(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"index.html":     htmlPage(`<a href="dir/index.html">blocked alias</a> <a href="x.html">x</a>`),
		"x.html":         htmlPage(`<a href="dir/">allowed</a>`),
		"dir/index.html": htmlPage(`<a href="deep.html">deep</a>`),
		"dir/deep.html":  htmlPage(`deep`),
		"robots.txt":     "User-agent: *\nDisallow: /*index.html$\n",
	})
	s, err := Discover(dir, Options{SiteURL: mustURL(t, testSiteURL)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Pages {
		got = append(got, fmt.Sprintf("%s@%d%v %v", p.URL, p.Depth, p.Aliases, p.Carrier))
	}
	want := []string{"/@0[] true", "/x.html@1[] true", "/dir/@2[/dir/index.html] true", "/dir/deep.html@3[] true"}
	if !slices.Equal(got, want) {
		t.Errorf("pages %q, want %q", got, want)
	}
}
