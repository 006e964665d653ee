package recover

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// watchedSession is a session whose target generation, made at gen,
// was found, with the root page linking to /p1.html.
func watchedSession(gen time.Time) *session {
	s := &session{carriers: map[string]bool{"/p2.html": true}, genTime: gen, seen: map[string]bool{}}
	s.mpages.linked = map[string]bool{"/p1.html": true}
	return s
}

// firstPriority counts the queued captures of priority 0.
func firstPriority(s *session) int {
	n := 0
	for _, q := range s.queue {
		if s.priority(q.c) == 0 {
			n++
		}
	}
	return n
}

// TestWatchedPageCostsOneCaptureAmongEqualTimes: a listing giving
// thousands of captures of a linked page at the same (future) time, each
// with its own digest, makes recovery read one of them before settling,
// not all: a page watched for a newer manifest costs one capture.
func TestWatchedPageCostsOneCaptureAmongEqualTimes(t *testing.T) {
	gen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := watchedSession(gen)
	future := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5000 {
		s.enqueue(source.Capture{Source: "liar", URL: "https://example.org/p1.html", Time: future,
			Digest: fmt.Sprintf("sha1:%032d", i), Locator: fmt.Sprint(i)}, nil)
	}
	s.sort()
	if n := firstPriority(s); n != 1 {
		t.Errorf("%d captures of the watched page come first, want 1", n)
	}
}

// TestWatchedPageNewestIsEachSources: an archive listing a capture of a
// linked page dated in the future does not hide another archive's newest
// capture of it, which may be the one carrying a newer manifest: each
// source's newest capture of a watched page is read.
func TestWatchedPageNewestIsEachSources(t *testing.T) {
	gen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := watchedSession(gen)
	honest := source.Capture{Source: "wayback", URL: "https://example.org/p1.html", Time: gen.Add(time.Hour), Locator: "w"}
	s.enqueue(honest, nil)
	s.enqueue(source.Capture{Source: "liar", URL: "https://example.org/p1.html", Time: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), Locator: "l"}, nil)
	s.sort()
	if s.priority(honest) != 0 {
		t.Errorf("the honest archive's newest capture of the watched page has priority %d, want 0", s.priority(honest))
	}
}

// TestManifestPagesEachSourcesShare: an archive serving a root page that
// carries a genuine manifest (replayed: manifests are public) beside
// thousands of forged links, and the same manifest on hundreds of
// made-up pages, does not use up the pages recovery watches: another
// archive's root capture still adds the pages it links to, and its pages
// carrying a manifest count.
func TestManifestPagesEachSourcesShare(t *testing.T) {
	gen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := watchedSession(gen)
	s.mpages.linked = nil
	m := &manifest.Signed{Manifest: manifest.Manifest{Time: gen}}
	var links strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&links, "<a href=\"/forged%d.html\">x</a>\n", i)
	}
	liar := source.Capture{Source: "liar", URL: "https://example.org/", Time: gen.Add(time.Hour)}
	s.noteManifestPages(liar, []byte("<html><body>"+links.String()+"</body></html>"), codec.PageReport{From: origin(liar), Manifests: []*manifest.Signed{m}})
	for i := range 1000 {
		c := source.Capture{Source: "liar", URL: fmt.Sprintf("https://example.org/made-up%d.html", i), Time: gen.Add(time.Hour)}
		s.noteManifestPages(c, nil, codec.PageReport{From: origin(c), Manifests: []*manifest.Signed{m}})
	}
	root := source.Capture{Source: "wayback", URL: "https://example.org/", Time: gen.Add(-time.Hour)}
	s.noteManifestPages(root, []byte(`<html><body><a href="/p1.html">p1</a></body></html>`), codec.PageReport{From: origin(root), Manifests: []*manifest.Signed{m}})
	p9 := source.Capture{Source: "wayback", URL: "https://example.org/p9.html", Time: gen.Add(time.Hour)}
	s.noteManifestPages(p9, nil, codec.PageReport{From: origin(p9), Manifests: []*manifest.Signed{m}})
	if !s.mpages.has("/p1.html") || !s.mpages.has("/p9.html") {
		t.Errorf("after the liar's pages, the honest root's link /p1.html watched %v, the honest manifest page /p9.html %v; want both",
			s.mpages.has("/p1.html"), s.mpages.has("/p9.html"))
	}
	if n := len(s.mpages.linked) + len(s.mpages.found); n > 2*maxManifestPages+2 {
		t.Errorf("%d pages watched, want at most %d", n, 2*maxManifestPages+2)
	}
}
