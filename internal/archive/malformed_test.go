package archive

import (
	"context"
	"errors"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// listWith lists through a server with cfg, returning the captures and
// the listing's error.
func listWith(t *testing.T, cfg archivetest.Config, list func(s *archivetest.Server, fn func(Capture) error) error) ([]Capture, error) {
	t.Helper()
	s := newServer(t, siteCaptures(35), cfg)
	var got []Capture
	err := list(s, func(c Capture) error { got = append(got, c); return nil })
	return got, err
}

// TestListMalformedRows: every CDX page and TimeMap page carries a short
// row, a garbage row and an over-long one (archivetest's malformed
// fault). Expected: the listing delivers exactly the captures of a clean
// listing, and ends with a *ListError counting what it dropped.
func TestListMalformedRows(t *testing.T) {
	for name, c := range pagedListings() {
		t.Run(name, func(t *testing.T) {
			want, err := listWith(t, c.cfg, c.list)
			if err != nil || len(want) == 0 {
				t.Fatalf("clean listing: %d captures, %v", len(want), err)
			}
			c.cfg.Faults = archivetest.Faults{Malformed: 1}
			got, err := listWith(t, c.cfg, c.list)
			var le *ListError
			if !errors.As(err, &le) || le.Malformed+le.Dropped == 0 || le.Stopped != "" {
				t.Fatalf("err %v, want a *ListError counting dropped rows", err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d captures, want %d (%v)", len(got), len(want), err)
			}
			for i := range got {
				if got[i].Time != want[i].Time || got[i].URL != want[i].URL {
					t.Errorf("capture %d: %v, want %v", i, got[i], want[i])
				}
			}
			t.Logf("%v", err)
		})
	}
}

// TestListRereadsBrokenPages: listing pages whose answers break off
// (archivetest's truncate fault on 25% of requests, seeded: a Content-Length
// promising more than is sent). Expected: each broken page is asked
// again and the listing delivers exactly the captures of a clean one,
// none twice, none missing.
func TestListRereadsBrokenPages(t *testing.T) {
	for name, c := range pagedListings() {
		t.Run(name, func(t *testing.T) {
			want, err := listWith(t, c.cfg, c.list)
			if err != nil {
				t.Fatal(err)
			}
			c.cfg.Faults = archivetest.Faults{Truncate: 0.25, Seed: 1}
			s := newServer(t, siteCaptures(35), c.cfg)
			var got []Capture
			if err := c.list(s, func(c Capture) error { got = append(got, c); return nil }); err != nil {
				t.Fatal(err)
			}
			cut := 0
			for _, r := range s.Requests() {
				if r.Fault == archivetest.FaultTruncate {
					cut++
				}
			}
			if cut == 0 {
				t.Fatal("no page broke off: the test proves nothing")
			}
			if len(got) != len(want) {
				t.Fatalf("%d captures, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i].Time != want[i].Time || got[i].URL != want[i].URL {
					t.Errorf("capture %d: %v, want %v", i, got[i], want[i])
				}
			}
			t.Logf("%d pages broke off; %d captures delivered once each", cut, len(got))
		})
	}
}

// pagedListings are a CDX listing and a TimeMap listing that take several
// pages of the local archive.
func pagedListings() map[string]struct {
	cfg  archivetest.Config
	list func(s *archivetest.Server, fn func(Capture) error) error
} {
	return map[string]struct {
		cfg  archivetest.Config
		list func(s *archivetest.Server, fn func(Capture) error) error
	}{
		"cdx": {archivetest.Config{MaxRows: 4}, func(s *archivetest.Server, fn func(Capture) error) error {
			return List(context.Background(), s.Client(), s.URL, "example.org/*", ListOptions{}, fn)
		}},
		"timemap": {archivetest.Config{TimeMapPageSize: 2}, func(s *archivetest.Server, fn func(Capture) error) error {
			return ListTimeMap(context.Background(), s.Client(), s.URL+"/timemap/link/http://example.org/p3", TimeMapOptions{}, fn)
		}},
	}
}
