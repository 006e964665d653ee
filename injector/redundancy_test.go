package injector

import (
	"context"
	"strings"
	"testing"
)

// TestMaxRedundancySpansEveryPage: Fill raises parity until every stripe
// spans every carrier page and puts no second block of a stripe on a
// page (it would be lost with the first), so a larger page budget adds
// nothing on a site whose pages have room; the report says the plan is
// at its full width (FullWidth), and a plan without Fill is not.
func TestMaxRedundancySpansEveryPage(t *testing.T) {
	f := newFixture(t, 8, 3)
	added := map[int]int{}
	for _, budget := range []int{256 << 10, 100 << 20} {
		o := f.options()
		o.SetRedundancy(RedundancyMax)
		o.PageBudget, o.DryRun = budget, true
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.FullWidth {
			t.Errorf("budget %d: FullWidth false", budget)
		}
		for _, s := range res.Segments {
			if s.K+s.M != res.Carriers {
				t.Errorf("budget %d: segment %s spans %d+%d of %d pages", budget, s.Name, s.K, s.M, res.Carriers)
			}
		}
		for _, p := range res.Pages {
			added[budget] += p.AddedBytes
		}
	}
	if added[256<<10] != added[100<<20] {
		t.Errorf("bytes added %v: a larger budget changed the plan", added)
	}
	o := f.options()
	o.DryRun = true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.FullWidth {
		t.Errorf("a target plan without Fill says FullWidth")
	}
}

// TestMaxPageBytesPastTruncationWarns: pages allowed past 5 MiB, where
// Common Crawl cuts a record, are planned as asked, with a warning.
func TestMaxPageBytesPastTruncationWarns(t *testing.T) {
	f := newFixture(t, 8, 3)
	for _, tc := range []struct {
		max  int
		warn bool
	}{{DefaultMaxPageBytes, false}, {5 << 20, false}, {50 << 20, true}} {
		o := f.options()
		o.MaxPageBytes, o.DryRun = tc.max, true
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(res.Warnings, "\n"), "Common Crawl")
		if warned != tc.warn {
			t.Errorf("max page bytes %d: warned %v, want %v (%q)", tc.max, warned, tc.warn, res.Warnings)
		}
	}
}
