package caddymodule

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestMetrics: injected pages and added bytes are counted, the generation's
// blocks and age are exposed, and two handlers in one config share the
// series instead of failing to register.
func TestMetrics(t *testing.T) {
	f := newFixture(t)
	reg := prometheus.NewRegistry()
	h := newHandler(t, f.bundle)
	c := newCounters()
	h.metrics = newMetrics(reg, c)
	other := newMetrics(reg, c) // a second lazarus handler in the same config
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

// TestMetricsSurviveReload: Caddy gives each config load a new registry;
// the counters counted before a reload are in the new load's registry
// with their values (not gone until counted again), while its gauges are
// its own, set afresh.
func TestMetricsSurviveReload(t *testing.T) {
	c := newCounters()
	before := newMetrics(prometheus.NewPedanticRegistry(), c)
	before.audits.WithLabelValues("s", "done").Inc()
	before.builds.WithLabelValues("s", "new").Add(2)
	before.injected.WithLabelValues("s").Add(3)
	before.blocks.WithLabelValues("s").Set(9)
	reg := prometheus.NewPedanticRegistry() // the reloaded config's
	after := newMetrics(reg, c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			got[mf.GetName()] += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	want := map[string]float64{"caddy_lazarus_audits_total": 1, "caddy_lazarus_builds_total": 2, "caddy_lazarus_pages_injected_total": 3}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s after the reload: %v, want %v (all: %v)", name, got[name], v, got)
		}
	}
	if _, ok := got["caddy_lazarus_generation_blocks"]; ok {
		t.Errorf("the old load's gauge is in the new registry: %v", got)
	}
	after.audits.WithLabelValues("s", "done").Inc()
	if v := metricValue(t, before.audits.WithLabelValues("s", "done")); v != 2 {
		t.Errorf("one counter for both loads: %v, want 2", v)
	}
}

// metricValue reads the value of one counter or gauge sample.
func metricValue(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	t.Fatalf("%s is neither a counter nor a gauge", c.Desc())
	return 0
}
