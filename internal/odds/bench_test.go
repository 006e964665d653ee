package odds

import (
	"math/rand/v2"
	"testing"
	"time"
)

// bigSite is a 10,000-page site with a year of history of about 100,000
// captures by two archives, and a plan of 400 stripes of 20 data shards
// over 60 shards each, spread over the 2,000 shallowest pages.
func bigSite() (History, []Need) {
	var pages []Page
	for i := range 10000 {
		d := 0
		switch {
		case i >= 2000:
			d = 3
		case i >= 200:
			d = 2
		case i >= 1:
			d = 1
		}
		pages = append(pages, Page{Key: "/p/" + itoa(i), Depth: d})
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	h := History{Now: now, Pages: pages, Captures: map[string][]Capture{}}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, truth := range []Archive{
		{Name: "wayback", Sweeps: []float64{1.0 / 30, 1.0 / 45, 1.0 / 60, 1.0 / 90}, Take: 0.7, OnePage: []float64{1, 0.01, 0.005, 0.001}},
		{Name: "commoncrawl", Sweeps: []float64{1.0 / 30, 1.0 / 30, 1.0 / 40, 1.0 / 50}, Take: 0.5},
	} {
		caps, _ := truth.Draw(pages, now.Add(-365*Day), now, 48*time.Hour, rng)
		h.Captures[truth.Name] = caps
	}
	var needs []Need
	for s := range 400 {
		var ps []int
		for i := range 60 {
			ps = append(ps, (s*7+i*31)%2000)
		}
		needs = append(needs, Need{K: 20, Pages: ps})
	}
	return h, needs
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// BenchmarkFitBigSite measures Fit on bigSite's history.
func BenchmarkFitBigSite(b *testing.B) {
	h, _ := bigSite()
	n := 0
	for _, c := range h.Captures {
		n += len(c)
	}
	b.ReportMetric(float64(n), "captures")
	b.ResetTimer()
	for range b.N {
		Fit(h)
	}
}

// BenchmarkRecoverableBigSite measures Recoverable on bigSite's plan,
// within 30 days.
func BenchmarkRecoverableBigSite(b *testing.B) {
	h, needs := bigSite()
	m := Fit(h)
	b.ResetTimer()
	for range b.N {
		m.Recoverable(h.Pages, needs, 30*Day)
	}
}

// BenchmarkRecoverableSmallSite measures Recoverable on the 40-page
// two-archive site of the tests.
func BenchmarkRecoverableSmallSite(b *testing.B) {
	m, pages := sweepSite()
	need := []Need{{K: 10, Pages: seq(len(pages), 1)}}
	for range b.N {
		m.Recoverable(pages, need, 30*Day)
	}
}
