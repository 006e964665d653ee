package caddymodule

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestLoadedLogSaysPlan: the "loaded" log line counts the pages the
// generation's plan.json names (pages_in_plan) and says how blocks are
// placed, so a self-built generation (plan naming no page, blocks placed
// as pages are served) is not mistaken for one that lost its plan.
func TestLoadedLogSaysPlan(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	core, logs := observer.New(zap.InfoLevel)
	h.logger = zap.New(core)
	serve(t, h, &page{body: html}, "GET", "/", nil)
	g := h.gen.Load()
	if g == nil || len(g.pages) == 0 {
		t.Fatal("the fixture's generation has no plan")
	}
	loaded := logs.FilterMessage("loaded lazarus generation").All()
	if len(loaded) != 1 {
		t.Fatalf("logged %v, want one loaded line", logs.All())
	}
	fields := loaded[0].ContextMap()
	if fields["pages_in_plan"] != int64(len(g.pages)) || fields["placement"] != "plan, then as served" {
		t.Errorf("loaded line %v, want pages_in_plan %d, placement by plan", fields, len(g.pages))
	}

	g.pages = map[string][]int{} // as a self-built generation's plan
	h.use(g, nil)
	loaded = logs.FilterMessage("loaded lazarus generation").All()
	if fields := loaded[len(loaded)-1].ContextMap(); fields["pages_in_plan"] != int64(0) || fields["placement"] != "as served" {
		t.Errorf("loaded line %v, want pages_in_plan 0, placement as served", fields)
	}
}
