package assure

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// benchSite is a 1,000-page site at depths 0–4 with 3 blocks per page
// (3,000 blocks: two data segments of 50 stripes, k = 20, m = 10, shards
// spread over pages as placement does), and a 10,000-capture history over
// two archives: each sweeps the site every ~15 days in the 90-day window,
// capturing each page with probability 0.83 per sweep.
func benchSite() Site {
	rng := rand.New(rand.NewPCG(1, 1))
	site := Site{Now: now, Segments: []Segment{
		{Name: "a", K: 20, M: 10, Stripes: 50},
		{Name: "b", K: 20, M: 10, Stripes: 50},
	}}
	var blocks []manifest.BlockRef
	for _, s := range site.Segments {
		for stripe := range s.Stripes {
			for shard := range s.K + s.M {
				blocks = append(blocks, manifest.BlockRef{Segment: s.Name, Stripe: uint32(stripe), Shard: uint16(shard)})
			}
		}
	}
	rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	for u := range 1000 {
		site.Pages = append(site.Pages, Page{
			URL:      fmt.Sprintf("https://example.org/page/%d", u),
			Depth:    min(4, u/100),
			Blocks:   blocks[3*u : 3*u+3],
			Captures: map[string][]Capture{},
		})
	}
	for _, a := range []string{"ia", "cc"} {
		for s := range 6 {
			start := now.Add(-time.Duration(s*15+1+rng.IntN(10)) * Day)
			for u := range site.Pages {
				if rng.Float64() < 0.83 {
					t := start.Add(time.Duration(u) * 10 * time.Second)
					site.Pages[u].Captures[a] = append(site.Pages[u].Captures[a], Capture{Time: t, Digest: fmt.Sprint(s)})
				}
			}
		}
	}
	return site
}

// BenchmarkAssess_1000Pages measures one Assess of benchSite with 4,000
// samples per view.
func BenchmarkAssess_1000Pages(b *testing.B) {
	site := benchSite()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assess(site, Options{Samples: 4000}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchSiteShape keeps benchSite what its comment says.
func TestBenchSiteShape(t *testing.T) {
	site := benchSite()
	n := 0
	for _, p := range site.Pages {
		for _, cs := range p.Captures {
			n += len(cs)
		}
	}
	if n < 9500 || n > 10500 {
		t.Errorf("%d captures, want about 10,000", n)
	}
}
