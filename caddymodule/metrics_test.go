package caddymodule

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestMetrics: injected pages and added bytes are counted, the generation's
// blocks and age are exposed, and two handlers in one config share the
// series instead of failing to register.
func TestMetrics(t *testing.T) {
	f := newFixture(t)
	reg := prometheus.NewRegistry()
	h := newHandler(t, f.bundle)
	h.metrics = newMetrics(reg)
	other := newMetrics(reg) // a second lazarus handler in the same config
	w := serve(t, h, &page{body: html}, "GET", "/a", nil)
	u := serve(t, h, &page{body: html}, "GET", "/unplanned", nil) // gets a placement record
	added := float64(w.Body.Len() + u.Body.Len() - 2*len(html))
	got := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				got[mf.GetName()] += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				got[mf.GetName()] += m.GetGauge().GetValue()
			}
		}
	}
	if got["caddy_lazarus_pages_injected_total"] != 2 || got["caddy_lazarus_bytes_added_total"] != added {
		t.Fatalf("counters %v, want 2 pages and %v bytes", got, added)
	}
	// Expected: the plan puts every block on one page, the record adds one more to some.
	if got["caddy_lazarus_block_carriers"] < 3 {
		t.Fatalf("carriers per block (min+median+max) %v, want at least 3", got["caddy_lazarus_block_carriers"])
	}
	if got["caddy_lazarus_generation_blocks"] == 0 {
		t.Fatalf("no generation_blocks in %v", got)
	}
	if other.injected != h.metrics.injected {
		t.Fatal("a second handler did not share the registered series")
	}
}
