package injector_test

import (
	"context"
	"os"
	"testing"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

// BenchmarkInjectTarget_400Pages_5M times inject's default (target) plan
// on a site of 400 linked pages with a 5 MiB server side, a dry run so
// that only reading, packing, coding and placing are timed.
func BenchmarkInjectTarget_400Pages_5M(b *testing.B) {
	s := sitetest.NewSite(b)
	sitetest.Linked(b, s.Dir, 399)
	sitetest.ServerSide(b, s.Dir, 5<<20)
	o := s.DefaultOptions("https://example.org/")
	o.Includes = s.Include("app", "etc")
	o.DryRun = true
	b.ReportAllocs()
	for b.Loop() {
		if err := os.RemoveAll(o.StateDir); err != nil {
			b.Fatal(err)
		}
		res, err := injector.Run(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Carriers), "carriers")
		if res.WithRequests != nil {
			b.ReportMetric(res.WithRequests.Share, "what-if-share")
		}
	}
}
