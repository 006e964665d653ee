package sim

import (
	"math"
	"slices"
	"testing"
)

func TestSiteOrderAndDepths(t *testing.T) {
	c := DefaultConfig()
	s := newSite(&c, stream(&c, 0, streamSite))
	counts := map[int]int{}
	for i, p := range s.pages {
		counts[p.depth]++
		if i > 0 && (p.depth < s.pages[i-1].depth || p.url <= s.pages[i-1].url) {
			t.Fatalf("page %d (%s, depth %d) out of placement order", i, p.url, p.depth)
		}
		if math.Abs(p.solo+p.sweepP*s.sweepRate-p.rate) > 1e-12*p.rate || p.sweepP < 0 || p.sweepP > 1 {
			t.Errorf("page %d: rate %g is not solo %g + sweeps %g×%g", i, p.rate, p.solo, p.sweepP, s.sweepRate)
		}
	}
	if counts[0] != 1 || counts[1] != 10 || counts[2] != 70 || counts[3] != 119 {
		t.Errorf("depth counts %v, want 1, 10, 70, 119", counts)
	}
}

// The root pages' capture intervals follow seed 001: 80% between 20 and
// 127 days.
func TestSiteSeed001Intervals(t *testing.T) {
	c := DefaultConfig()
	c.Pages = 2
	var iv []float64
	for r := range 4000 {
		s := newSite(&c, stream(&c, r, streamSite))
		iv = append(iv, 1/s.pages[0].rate)
	}
	slices.Sort(iv)
	p10, p50, p90 := iv[len(iv)/10], iv[len(iv)/2], iv[len(iv)*9/10]
	if math.Abs(p10-20)/20 > 0.08 || math.Abs(p90-127)/127 > 0.08 || math.Abs(p50-50.4)/50.4 > 0.08 {
		t.Errorf("root intervals p10 %.1f, p50 %.1f, p90 %.1f days; want about 20, 50.4, 127", p10, p50, p90)
	}
}

func TestNaturalCapturesRates(t *testing.T) {
	// Over 20,000 days each page's captures come at its rate, sweeps
	// included.
	c := DefaultConfig()
	c.Pages, c.Skew = 12, 0.5
	rng := stream(&c, 0, streamSite)
	s := newSite(&c, rng)
	const span = 20000.0
	caps := naturalCaptures(s, -100, span-100, rng)
	if !slices.IsSortedFunc(caps, compareCaptures) {
		t.Fatal("captures not sorted")
	}
	n := make([]int, len(s.pages))
	for _, x := range caps {
		n[x.page]++
	}
	for u, p := range s.pages {
		want := p.rate * span
		if math.Abs(float64(n[u])-want) > 4*math.Sqrt(want)+0.05*want {
			t.Errorf("page %d: %d captures, want about %.0f", u, n[u], want)
		}
	}
}
