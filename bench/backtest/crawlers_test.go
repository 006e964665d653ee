package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

// testSite returns a drawn site and what it serves from t0 on.
func testSite(t *testing.T, t0 time.Time) (*site, served) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	st := newSite(rng)
	srv := served{}
	for _, p := range st.Pages {
		srv[p.URL] = []version{{From: t0, Body: st.html(p, rng)}}
	}
	return st, srv
}

func TestSweeperWalksServedLinksWithinItsDepthLimitAndBudget(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	st, srv := testSite(t, t0)
	depth := map[string]int{}
	for _, p := range st.Pages {
		depth[p.URL] = p.Depth
	}
	c := sweeper{Delay: [2]time.Duration{time.Second, 2 * time.Second}}
	rng := rand.New(rand.NewPCG(1, 1))
	for limit := range 4 {
		caps := c.crawl(rng, srv, t0, limit, 1000)
		want := 0
		for _, p := range st.Pages {
			if p.Depth <= limit {
				want++
			}
		}
		if len(caps) != want {
			t.Errorf("depth limit %d: %d captures, want the %d pages within it", limit, len(caps), want)
		}
		for i, cp := range caps {
			if depth[cp.URL] > limit {
				t.Errorf("depth limit %d: captured %s at depth %d", limit, cp.URL, depth[cp.URL])
			}
			if i > 0 && !cp.Time.After(caps[i-1].Time) {
				t.Errorf("captures not spaced by the politeness delay: %s then %s", caps[i-1].Time, cp.Time)
			}
		}
	}
	if caps := c.crawl(rng, srv, t0, 3, 5); len(caps) != 5 || caps[0].URL != "/" {
		t.Errorf("budget 5: %d captures, first %q; want 5 from the root", len(caps), caps[0].URL)
	}
	if caps := c.crawl(rng, srv, t0.Add(-time.Hour), 3, 1000); len(caps) != 0 {
		t.Errorf("before the site was served: %d captures, want none", len(caps))
	}
	failing := sweeper{Delay: c.Delay, Fail: 1}
	if caps := failing.crawl(rng, srv, t0, 3, 1000); len(caps) != 0 {
		t.Errorf("every fetch failing: %d captures, want none", len(caps))
	}
}

func TestSweeperCrawlStraddlingAGenerationSwitchTakesBothVersions(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, srv := testSite(t, t0)
	switchAt := t0.Add(24*time.Hour + 30*time.Second)
	for u, vs := range srv {
		srv[u] = append(vs, version{From: switchAt, Body: append([]byte("<!-- new -->"), vs[0].Body...)})
	}
	c := sweeper{Delay: [2]time.Duration{10 * time.Second, 10 * time.Second}}
	caps := c.crawl(rand.New(rand.NewPCG(1, 1)), srv, t0.Add(24*time.Hour), 3, 1000)
	old, fresh := 0, 0
	for _, cp := range caps {
		if string(cp.Body[:4]) == "<!--" {
			fresh++
		} else {
			old++
		}
	}
	if old != 2 || fresh != len(caps)-2 {
		t.Errorf("crawl from 30 s before the switch, a page per 10 s: %d old and %d new pages, want 2 old", old, fresh)
	}
}

func TestCommonCrawlTakesItsBudgetInLinkOrderAndCutsAtTheLimitOfTheTime(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	st, srv := testSite(t, t0)
	c := commonCrawler{First: t0.Add(time.Hour), Every: [2]float64{1000, 1000}, Span: 14, BudgetMean: 10, BudgetSig: 0,
		Lag: [2]float64{20, 20}, Cut: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Before: 1000, After: 5000}
	caps := c.crawls(rand.New(rand.NewPCG(1, 1)), srv, t0.Add(100*day))
	if len(caps) != 10 {
		t.Fatalf("%d captures, want the budget of 10", len(caps))
	}
	order := linkOrder(srv, t0)
	taken := map[string]bool{}
	for _, cp := range caps {
		taken[cp.URL] = true
		if len(cp.Body) > 1000 {
			t.Errorf("%s: %d bytes kept in January 2025, want at most 1000", cp.URL, len(cp.Body))
		}
		if want := c.First.Add(34 * day); !cp.Visible.Equal(want) {
			t.Errorf("%s visible at %s, want the crawl's end plus its lag, %s", cp.URL, cp.Visible, want)
		}
	}
	for _, u := range order[:10] {
		if !taken[u] {
			t.Errorf("%s is among the first 10 pages in link order but not taken", u)
		}
	}
	if order[0] != "/" || len(order) != len(st.Pages) {
		t.Errorf("link order %v: want every page from the root", order)
	}
	late := c
	late.First = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, cp := range late.crawls(rand.New(rand.NewPCG(1, 1)), srv, late.First.Add(day)) {
		if len(cp.Body) > 5000 || len(srv.at(cp.URL, cp.Time)) > 5000 && len(cp.Body) != 5000 {
			t.Errorf("%s: %d bytes kept in March 2025, want the first 5000", cp.URL, len(cp.Body))
		}
	}
}

func TestSharerBurstsStayWithinADayAndTheDailyLimit(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, srv := testSite(t, t0)
	// Bursts of 1 + Poisson(30) captures, cut at 10: every share event
	// brings exactly 10, listed in the order drawn.
	s := sharer{Rates: map[string]float64{"/": 0.5}, Burst: 30, MaxBurst: 10, LagHours: 1}
	caps := s.captures(rand.New(rand.NewPCG(1, 1)), srv, t0, t0.Add(200*day))
	if len(caps) < 500 || len(caps)%10 != 0 {
		t.Fatalf("%d captures of a page shared every 2 days for 200 days in bursts of 10, want about 1000, a multiple of 10", len(caps))
	}
	for i := 0; i < len(caps); i += 10 {
		first, last := caps[i].Time, caps[i].Time
		for _, cp := range caps[i : i+10] {
			if cp.URL != "/" || cp.Visible.Before(cp.Time) {
				t.Fatalf("capture %s at %s visible %s", cp.URL, cp.Time, cp.Visible)
			}
			first, last = minTime(first, cp.Time), maxTime(last, cp.Time)
		}
		if last.Sub(first) >= day {
			t.Errorf("a burst spans %s, want under a day", last.Sub(first))
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
