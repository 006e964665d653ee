package recover

import (
	"fmt"
	"testing"
	"time"

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
