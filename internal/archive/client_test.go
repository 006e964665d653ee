package archive

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// siteCaptures returns n captures spread over five pages of example.org,
// each with a distinct body, plus captures that default filters exclude.
func siteCaptures(n int) []archivetest.Capture {
	t0 := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	var caps []archivetest.Capture
	for i := range n {
		caps = append(caps, archivetest.Capture{
			URL:  fmt.Sprintf("http://example.org/p%d", i%5),
			Time: t0.Add(time.Duration(i) * 36 * time.Hour),
			Body: []byte(fmt.Sprintf("<html><body>page %d</body></html>", i)),
		})
	}
	return append(caps,
		archivetest.Capture{URL: "http://example.org/gone", Time: t0, Status: 404, Body: []byte("nf")},
		archivetest.Capture{URL: "http://example.org/logo.png", Time: t0, MIME: "image/png", Body: []byte("png")},
		archivetest.Capture{URL: "http://other.org/", Time: t0, Body: []byte("other")},
	)
}

func newServer(t *testing.T, caps []archivetest.Capture, cfg archivetest.Config) *archivetest.Server {
	t.Helper()
	s, err := archivetest.New(caps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func collect(t *testing.T, list func(fn func(Capture) error) error) []Capture {
	t.Helper()
	var out []Capture
	if err := list(func(c Capture) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestListPagingExactlyOnce(t *testing.T) {
	const n = 37
	s := newServer(t, siteCaptures(n), archivetest.Config{})
	for _, limit := range []int{0, 1, 2, 5, 7, n - 1, n, n + 1} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			caps := collect(t, func(fn func(Capture) error) error {
				return List(context.Background(), s.Client(), s.URL, "example.org/*", ListOptions{Limit: limit}, fn)
			})
			seen := map[string]int{}
			for _, c := range caps {
				seen[c.URL+" "+FormatTimestamp(c.Time)]++
				if c.Source != "wayback" || c.Status != 200 || c.MIME != "text/html" {
					t.Errorf("unexpected capture %+v", c)
				}
			}
			if len(caps) != n || len(seen) != n {
				t.Errorf("got %d captures (%d distinct), want %d", len(caps), len(seen), n)
			}
		})
	}
}

func TestListCollapseAdjacent(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var caps []archivetest.Capture
	for i, body := range []string{"A", "A", "B", "A", "A"} {
		caps = append(caps, archivetest.Capture{URL: "http://example.org/", Time: t0.AddDate(0, 0, i), Body: []byte(body)})
	}
	s := newServer(t, caps, archivetest.Config{})
	tests := []struct {
		name string
		opts ListOptions
		want int
	}{
		// Only adjacent duplicates collapse: A B A.
		{"unpaged", ListOptions{}, 3},
		// Pages of 2 kept rows: [A (A) B] [A (A)] -> 3, as unpaged.
		{"paged by 2", ListOptions{Limit: 2}, 3},
		// Collapsing restarts on each page, so pages of one row keep all 5:
		// paged and unpaged listings differ, as on IA.
		{"paged by 1", ListOptions{Limit: 1}, 5},
		// No collapse: all five.
		{"no collapse", ListOptions{Collapse: "-"}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collect(t, func(fn func(Capture) error) error {
				return List(context.Background(), s.Client(), s.URL, "example.org/", tt.opts, fn)
			})
			if len(got) != tt.want {
				t.Errorf("got %d captures, want %d", len(got), tt.want)
			}
		})
	}
}

func TestListFromToAndMatchType(t *testing.T) {
	s := newServer(t, siteCaptures(20), archivetest.Config{})
	from := time.Date(2015, 1, 4, 0, 0, 0, 0, time.UTC)
	to := time.Date(2015, 1, 10, 0, 0, 0, 0, time.UTC)
	got := collect(t, func(fn func(Capture) error) error {
		return List(context.Background(), s.Client(), s.URL, "example.org/", ListOptions{From: from, To: to, MatchType: "host"}, fn)
	})
	// Captures every 36 h from 1 Jan: i = 2..6 fall in [4 Jan, 10 Jan].
	if len(got) != 5 {
		t.Errorf("got %d captures, want 5", len(got))
	}
	for _, c := range got {
		if c.Time.Before(from) || c.Time.After(to) {
			t.Errorf("capture at %v outside range", c.Time)
		}
	}
}

func TestListReplayIsRaw(t *testing.T) {
	caps := siteCaptures(3)
	s := newServer(t, caps, archivetest.Config{})
	got := collect(t, func(fn func(Capture) error) error {
		return List(context.Background(), s.Client(), s.URL, "example.org/p0", ListOptions{MatchType: "exact"}, fn)
	})
	if len(got) != 1 {
		t.Fatalf("got %d captures", len(got))
	}
	body := fetchBody(t, s.Client(), got[0].Replay)
	if !bytes.Equal(body, caps[0].Body) {
		t.Errorf("raw replay %q, want %q", body, caps[0].Body)
	}
	rewritten := fetchBody(t, s.Client(), strings.Replace(got[0].Replay, "id_/", "/", 1))
	if !bytes.Contains(rewritten, []byte("<body>"+archivetest.ToolbarBegin)) {
		t.Errorf("rewritten replay lacks toolbar after <body>: %q", rewritten)
	}
}

func fetchBody(t *testing.T, c *http.Client, u string) []byte {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return b
}

func TestListErrors(t *testing.T) {
	s := newServer(t, siteCaptures(5), archivetest.Config{})
	ctx := context.Background()
	nop := func(Capture) error { return nil }
	// 429 surfaces as a typed error with Retry-After.
	throttled := newServer(t, siteCaptures(5), archivetest.Config{Faults: archivetest.Faults{Throttle: 1, RetryAfter: 7 * time.Second}})
	err := List(ctx, throttled.Client(), throttled.URL, "example.org/*", ListOptions{}, nop)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 429 || he.RetryAfter != 7*time.Second || !he.Throttled() {
		t.Errorf("throttled: err %v, want *HTTPError 429 retry 7s", err)
	}
	// 503 too.
	unavail := newServer(t, nil, archivetest.Config{Faults: archivetest.Faults{Unavailable: 1, RetryAfter: 2 * time.Second}})
	err = List(ctx, unavail.Client(), unavail.URL, "example.org/*", ListOptions{}, nop)
	if !errors.As(err, &he) || he.Status != 503 || he.RetryAfter != 2*time.Second {
		t.Errorf("unavailable: err %v", err)
	}
	// A bad query is a non-throttling HTTP error.
	err = List(ctx, s.Client(), s.URL, "example.org/*", ListOptions{Filters: []string{"nosuchfield:x"}}, nop)
	if !errors.As(err, &he) || he.Status != 400 || he.Throttled() {
		t.Errorf("bad query: err %v", err)
	}
	// A reset connection is a transport error.
	reset := newServer(t, nil, archivetest.Config{Faults: archivetest.Faults{Reset: 1}})
	if err := List(ctx, reset.Client(), reset.URL, "example.org/*", ListOptions{}, nop); err == nil {
		t.Error("reset: no error")
	}
	// fn's error stops the listing and is returned.
	stop := errors.New("stop")
	if err := List(ctx, s.Client(), s.URL, "example.org/*", ListOptions{}, func(Capture) error { return stop }); err != stop {
		t.Errorf("fn error: got %v", err)
	}
	// Byte and page bounds.
	if err := List(ctx, s.Client(), s.URL, "example.org/*", ListOptions{MaxBytes: 100}, nop); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxBytes: got %v", err)
	}
	if err := List(ctx, s.Client(), s.URL, "example.org/*", ListOptions{Limit: 1, MaxPages: 2}, nop); !errors.Is(err, ErrPageLimit) {
		t.Errorf("MaxPages: got %v", err)
	}
	// Invalid options are rejected before any request.
	if err := List(ctx, s.Client(), s.URL, "example.org/*", ListOptions{MatchType: "fuzzy"}, nop); err == nil {
		t.Error("bad match type accepted")
	}
}

// loopDoer answers every CDX query with the same resume key.
type loopDoer struct{}

func (loopDoer) Do(*http.Request) (*http.Response, error) {
	body := `[["timestamp","original"],["20200101000000","http://a/"],[],["same"]]`
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
}

func TestListResumeKeyLoop(t *testing.T) {
	n := 0
	err := List(context.Background(), loopDoer{}, "http://x", "a/*", ListOptions{}, func(Capture) error { n++; return nil })
	if !errors.Is(err, ErrMalformed) || n != 2 {
		t.Errorf("err %v after %d captures; want ErrMalformed after 2", err, n)
	}
}

func TestListTimeMapPaged(t *testing.T) {
	caps := siteCaptures(35) // 7 captures of each page
	s := newServer(t, caps, archivetest.Config{TimeMapPageSize: 2})
	got := collect(t, func(fn func(Capture) error) error {
		return ListTimeMap(context.Background(), s.Client(), s.URL+"/timemap/link/http://example.org/p3", TimeMapOptions{}, fn)
	})
	seen := map[time.Time]bool{}
	for _, c := range got {
		seen[c.Time] = true
		if c.URL != "http://example.org/p3" || !strings.Contains(c.Replay, "id_/") {
			t.Errorf("capture %+v", c)
		}
	}
	if len(got) != 7 || len(seen) != 7 {
		t.Fatalf("got %d mementos (%d distinct), want 7", len(got), len(seen))
	}
	if body := fetchBody(t, s.Client(), got[0].Replay); !bytes.Equal(body, caps[3].Body) {
		t.Errorf("replay %q, want %q", body, caps[3].Body)
	}
	// Four pages needed; allowing three fails.
	err := ListTimeMap(context.Background(), s.Client(), s.URL+"/timemap/link/http://example.org/p3", TimeMapOptions{MaxPages: 3}, func(Capture) error { return nil })
	if !errors.Is(err, ErrPageLimit) {
		t.Errorf("MaxPages 3: got %v", err)
	}
	// An unknown URL answers 404: no mementos, no error.
	none := collect(t, func(fn func(Capture) error) error {
		return ListTimeMap(context.Background(), s.Client(), s.URL+"/timemap/link/http://nowhere.org/", TimeMapOptions{}, fn)
	})
	if len(none) != 0 {
		t.Errorf("unknown URL gave %d mementos", len(none))
	}
}

func TestListCommonCrawl(t *testing.T) {
	caps := siteCaptures(23)
	for i := range caps {
		if i%2 == 1 {
			caps[i].Crawl = "CC-MAIN-2023-50"
		}
	}
	s := newServer(t, caps, archivetest.Config{CCPageSize: 4})
	ctx := context.Background()
	crawls, err := ListCrawls(ctx, s.Client(), s.URL+"/collinfo.json")
	if err != nil || len(crawls) != 2 || crawls[0].ID != "CC-MAIN-2024-10" {
		t.Fatalf("crawls %+v, %v", crawls, err)
	}
	total := 0
	for _, cr := range crawls {
		got := collect(t, func(fn func(Capture) error) error {
			return ListCommonCrawl(ctx, s.Client(), cr.CDXAPI, "example.org/*", CCOptions{}, fn)
		})
		total += len(got)
		for _, c := range got {
			checkWARCRecord(t, s, c)
		}
	}
	// example.org has 23 page captures plus /gone and /logo.png in the default crawl.
	if total != 25 {
		t.Errorf("listed %d captures, want 25", total)
	}
	none := collect(t, func(fn func(Capture) error) error {
		return ListCommonCrawl(ctx, s.Client(), crawls[0].CDXAPI, "nowhere.org/*", CCOptions{}, fn)
	})
	if len(none) != 0 {
		t.Errorf("nowhere.org: %d captures", len(none))
	}
}

// checkWARCRecord fetches c's record by byte range and checks it is one gzip
// member holding a WARC response for c.URL.
func checkWARCRecord(t *testing.T, s *archivetest.Server, c Capture) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+"/"+c.File, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", c.Offset, c.Offset+c.Length-1))
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", c.URL, err)
	}
	rec, err := io.ReadAll(zr)
	if err != nil || resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("%s: status %d, %v", c.URL, resp.StatusCode, err)
	}
	if !bytes.HasPrefix(rec, []byte("WARC/1.0\r\n")) || !bytes.Contains(rec, []byte("WARC-Target-URI: "+c.URL+"\r\n")) {
		t.Errorf("record for %s:\n%s", c.URL, rec)
	}
}
