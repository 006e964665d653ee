package recover_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// BenchmarkRecoverRequests_200Pages measures recovery efficiency, Warrick's
// figure of merit: requests sent to the archive against a lower bound of
// one listing, plus the fewest captures that could hold k blocks of every
// stripe given the most blocks any one page carries. Reported as metrics
// "requests", "minimum" and "ratio".
func BenchmarkRecoverRequests_200Pages(b *testing.B) {
	s := sitetest.NewSite(b)
	sitetest.Linked(b, s.Dir, 199)
	noise := make([]byte, 2<<20) // a 2 MiB incompressible server side
	rand.Read(noise)
	sitetest.WriteFile(b, s.Dir, "src/app/data.bin", noise)
	o := s.Options("https://example.org/")
	o.MaxBlockBytes = 0 // pages filled, in blocks of the size inject chooses
	o.Includes = s.Include("app")
	res := sitetest.Inject(b, o)
	caps := sitetest.CapturesOf(b, s.Pages(), time.Now().Add(time.Hour))
	minimum := 1 // the CDX listing
	for _, s := range res.Segments {
		most := 0
		for _, p := range res.Pages {
			most = max(most, p.Blocks)
		}
		minimum += (s.K*s.Stripes + most - 1) / max(most, 1)
	}
	b.ResetTimer()
	for b.Loop() {
		srv, err := archivetest.New(caps, archivetest.Config{})
		if err != nil {
			b.Fatal(err)
		}
		_, err = lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: s.Owner.Marshal(), Out: b.TempDir(), SiteURL: "https://example.org/",
			Sources: []lzrecover.Source{source.CDXSource{Base: srv.URL, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 1e6})}}})
		if err != nil {
			b.Fatal(err)
		}
		n := len(srv.Requests())
		srv.Close()
		b.ReportMetric(float64(n), "requests")
		b.ReportMetric(float64(minimum), "minimum")
		b.ReportMetric(float64(n)/float64(minimum), "ratio")
	}
}
