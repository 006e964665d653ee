package status_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// TestStatusLocalCache: a mirror directory is read whole each run, but a
// page the state directory knows is not scanned again: the second run
// takes every capture from the cache and reports the same. A cache entry
// that is damaged is not trusted: the third run reads those pages again
// and still reports the same.
func TestStatusLocalCache(t *testing.T) {
	site := newStatusSite(t, 4)
	g := site.inject(t, statusT1)
	dir := mirror(t, g.pages, statusT1.Add(time.Hour))
	state := t.TempDir()
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []source.Source{source.DirSource{Dir: dir}}, StateDir: state}
	first := runStatus(t, o)
	if first.RestorePoint == nil || first.RestorePoint.Generation != g.id {
		t.Fatalf("restore point %+v, want generation %s", first.RestorePoint, g.id)
	}
	for _, how := range []string{status.HowCache, status.HowFetched} {
		if how == status.HowFetched {
			entries, err := filepath.Glob(filepath.Join(state, "status", "*.json"))
			if err != nil || len(entries) == 0 {
				t.Fatalf("cache entries %v: %v", entries, err)
			}
			for _, e := range entries {
				if err := os.WriteFile(e, []byte(`{"v":3,"blocks":["AAAA"]}`), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		rep := runStatus(t, o)
		if !reflect.DeepEqual(rep.Generations, first.Generations) || !reflect.DeepEqual(rep.RestorePoint, first.RestorePoint) {
			t.Fatalf("%s run differs:\n%+v\n%+v", how, rep.Generations, first.Generations)
		}
		if len(rep.Captures) != len(first.Captures) {
			t.Fatalf("%s run: %d captures, want %d", how, len(rep.Captures), len(first.Captures))
		}
		for _, c := range rep.Captures {
			if c.How != how {
				t.Fatalf("%s run: capture %s is %q", how, c.URL, c.How)
			}
		}
	}
}

// countingWARC counts the captures Status reads again through Fetch.
type countingWARC struct {
	source.WARCSource
	fetches *int
}

func (w countingWARC) Fetch(ctx context.Context, c source.Capture) (io.ReadCloser, error) {
	*w.fetches++
	return w.WARCSource.Fetch(ctx, c)
}

// TestStatusStreamedBounded: what Status holds from a WARC's pages
// between listing and resolving is bounded (a WARC of many distinct
// records each repeating genuine blocks cannot fill memory); pages past
// the bound are read again when resolving, and the verdict is the same.
func TestStatusStreamedBounded(t *testing.T) {
	site := newStatusSite(t, 4)
	g := site.inject(t, statusT1)
	file := filepath.Join(t.TempDir(), "crawl.warc.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	for _, n := range g.names() {
		body := g.pages["https://example.org/"+n]
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		if err := w.WriteResponse("https://example.org/"+n, g.time.Add(time.Hour), []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	run := func() (*status.Report, int) {
		n := 0
		o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true,
			Sources: []source.Source{countingWARC{source.WARCSource{Path: file}, &n}}}
		return runStatus(t, o), n
	}
	free, reads := run()
	if reads != 0 {
		t.Fatalf("%d captures read again without a bound, want 0 (scanned while listing)", reads)
	}
	defer status.SetMaxStreamedBytes(1)()
	bounded, reads := run()
	if reads == 0 {
		t.Errorf("no capture read again past the bound")
	}
	if free.RestorePoint == nil || bounded.RestorePoint == nil || *free.RestorePoint != *bounded.RestorePoint {
		t.Fatalf("restore point %+v unbounded, %+v bounded; want the same", free.RestorePoint, bounded.RestorePoint)
	}
	if !reflect.DeepEqual(free.Generations, bounded.Generations) {
		t.Errorf("generations differ:\n%+v\n%+v", free.Generations, bounded.Generations)
	}
}

// TestLocalCopiesKnownByDigest: a mirror directory and a WARC file are
// read once, their bytes' digest looked up in the history: every capture
// is known from it, none scanned; the note on captures read says why
// when some are (a page version the history does not record).
func TestLocalCopiesKnownByDigest(t *testing.T) {
	site := newStatusSite(t, 4)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	dir := mirror(t, g2.pages, statusT2.Add(day))
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []source.Source{source.DirSource{Dir: dir}}, History: []history.Store{site.hist}, SpotChecks: status.NoSpotChecks}
	rep := runStatus(t, o)
	if s := rep.Sources[0]; s.Captures != len(g2.pages) || s.Known != len(g2.pages) || s.Fetched != 0 {
		t.Fatalf("mirror with history: %+v; want every capture known", s)
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != g2.id {
		t.Fatalf("restore point %+v", rp)
	}
	// A page changed by the mirror: read, and the note says why.
	p := filepath.Join(dir, "example.org", "p0.html")
	body, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(body, "\n<!-- wget -->"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, statusT2.Add(day), statusT2.Add(day)); err != nil {
		t.Fatal(err)
	}
	rep = runStatus(t, o)
	notes := strings.Join(rep.Notes, "\n")
	if rep.Sources[0].Fetched != 1 || !strings.Contains(notes, "1 whose digest the history does not record") || strings.Contains(notes, "their digests are not in it") {
		t.Fatalf("changed page: %+v, notes %q", rep.Sources[0], notes)
	}
}
