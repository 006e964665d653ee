package status_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// flakySource lists every capture of an archivetest world twice, "old"
// and "new", with the same digest; fetching a "new" one fails with HTTP
// 503, as flaky Wayback replays do.
type flakySource struct {
	caps []archivetest.Capture
}

func (flakySource) Name() string { return "flaky" }

func (s flakySource) List(_ context.Context, _ *url.URL, fn func(source.Capture) error) error {
	for _, c := range s.caps {
		for i, which := range []string{"old", "new"} {
			if err := fn(source.Capture{Source: "flaky", URL: c.URL, Time: c.Time.Add(time.Duration(i) * time.Hour),
				Digest: archivetest.Digest(c.Body), Locator: which + " " + c.URL}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s flakySource) Fetch(_ context.Context, c source.Capture) (io.ReadCloser, error) {
	which, u, _ := strings.Cut(c.Locator, " ")
	if which == "new" {
		return nil, errors.New("GET " + u + ": HTTP 503")
	}
	for _, p := range s.caps {
		if p.URL == u {
			return io.NopCloser(strings.NewReader(string(p.Body))), nil
		}
	}
	return nil, fmt.Errorf("no capture %s", u)
}

// TestFailedFetchTriesAnotherCaptureOfTheDigest: when one capture of a
// digest cannot be fetched, status and recover both try another capture
// with the same digest: both find generation 2.
func TestFailedFetchTriesAnotherCaptureOfTheDigest(t *testing.T) {
	site := newStatusSite(t, 8)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	src := flakySource{caps: g2.plant(statusT2.Add(day), "", g2.names()...)}
	rep, err := status.Run(context.Background(), status.Options{SiteURL: "https://example.org/",
		Sources: []source.Source{src}, ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true})
	if err != nil || rep.RestorePoint == nil || rep.RestorePoint.Generation != g2.id {
		t.Fatalf("status: %v, restore point %+v", err, rep.RestorePoint)
	}
	rrep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: site.Owner.Marshal(), Out: t.TempDir(),
		SiteURL: "https://example.org/", Sources: []source.Source{src}})
	if err != nil || rrep.Generation != g2.id {
		t.Fatalf("recover: %v, generation %q, want %s; problems %q", err, rrep.Generation, g2.id, rrep.Problems)
	}
}

// TestStatusMaxFetches: without a history, at most MaxFetches captures
// are fetched, the root page's first; the rest are reported unfetched,
// and a rerun with the state directory goes on where the first stopped.
func TestStatusMaxFetches(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", w.g2.names()...)...)
	})
	state := t.TempDir()
	o := w.statusOpts(false, state)
	o.MaxFetches = 3
	rep := runStatus(t, o)
	if n := w.srvW.RequestsTo("/web/"); n != 3 {
		t.Fatalf("%d fetches, want 3", n)
	}
	if s := rep.Sources[0]; s.Fetched != 3 || s.Unfetched != len(w.wayback)-3 {
		t.Fatalf("source %+v, want 3 fetched and %d unfetched", s, len(w.wayback)-3)
	}
	if rep.Newest != w.g2.id || !strings.Contains(strings.Join(rep.Notes, " "), "left unfetched") {
		t.Fatalf("the newest root page was not fetched first (newest %s), or notes %q", rep.Newest, rep.Notes)
	}
	for range 6 {
		rep = runStatus(t, o)
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || rep.Sources[0].Unfetched != 0 {
		t.Fatalf("after reruns: restore point %+v, source %+v", rp, rep.Sources[0])
	}
	if n := w.srvW.RequestsTo("/web/"); n != len(w.wayback) {
		t.Fatalf("%d fetches over the reruns, want each of the %d captures once", n, len(w.wayback))
	}
}
