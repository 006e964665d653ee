package status_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
)

// benchStatusWorld is a 1,000-page site, one generation, and a
// Wayback-style archive holding 10 sweeps of it: 10,000 captures.
// It also returns the number of distinct digests (pages without blocks
// are byte-identical).
func benchStatusWorld(b *testing.B) (*statusSite, *archivetest.Server, time.Time, int) {
	b.Helper()
	s := newStatusSite(b, 999)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := s.inject(b, t0)
	var caps []archivetest.Capture
	names := g.names()
	for sweep := 0; sweep < 10; sweep++ {
		at := t0.Add(time.Duration(sweep)*9*day + time.Hour)
		for i, n := range names {
			caps = append(caps, g.plant(at.Add(time.Duration(i)*time.Second), "", n)...)
		}
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	distinct := map[string]bool{}
	for _, c := range caps {
		distinct[archivetest.Digest(c.Body)] = true
	}
	return s, srv, t0.Add(95 * day), len(distinct)
}

// BenchmarkStatus_1000pages_10000captures audits the site with its
// serve history: listings only. It reports the requests sent per run.
func BenchmarkStatus_1000pages_10000captures(b *testing.B) {
	s, srv, now, _ := benchStatusWorld(b)
	client := source.NewClient(source.ClientOptions{Rate: 6e6})
	o := status.Options{SiteURL: "https://example.org/", ServerKey: s.Server.Marshal(), Now: now,
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Label: "wayback", Client: client}},
		History: []history.Store{s.hist}}
	before := len(srv.Requests())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := status.Run(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if a := rep.Assessment; a == nil || a.Error != "" || a.Carriers == 0 {
			b.Fatalf("assessment %+v", a)
		}
		if rep.RestorePoint == nil || !rep.RestorePoint.Newest || len(rep.Captures) != 10000 || rep.Sources[0].Known != 10000 {
			b.Fatalf("restore point %+v, %d captures, %d known", rep.RestorePoint, len(rep.Captures), rep.Sources[0].Known)
		}
	}
	b.StopTimer()
	reqs := srv.Requests()[before:]
	fetched := 0
	for _, r := range reqs {
		if strings.HasPrefix(r.URI, "/web/") {
			fetched++
		}
	}
	b.ReportMetric(float64(len(reqs))/float64(b.N), "requests/op")
	b.ReportMetric(float64(fetched)/float64(b.N), "fetches/op")
}

// BenchmarkStatus_1000pages_10000captures_NoHistory audits the same site
// without its history: each distinct digest is fetched once per run (no
// state directory).
func BenchmarkStatus_1000pages_10000captures_NoHistory(b *testing.B) {
	s, srv, now, distinct := benchStatusWorld(b)
	client := source.NewClient(source.ClientOptions{Rate: 6e6})
	o := status.Options{SiteURL: "https://example.org/", ServerKey: s.Server.Marshal(), Now: now,
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Label: "wayback", Client: client}}, NoLive: true}
	before := len(srv.Requests())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := status.Run(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if rep.RestorePoint == nil || rep.Sources[0].Fetched != distinct {
			b.Fatalf("restore point %+v, %d fetched, %d distinct digests", rep.RestorePoint, rep.Sources[0].Fetched, distinct)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(srv.Requests())-before)/float64(b.N), "requests/op")
}
