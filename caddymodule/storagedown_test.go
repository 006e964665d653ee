package caddymodule

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestStorageDownSaidOnce: when storage stops answering after a
// generation is loaded, pages keep it, and the log says so once per
// outage as a warning naming the generation kept (not an error saying
// there is no generation), and once when storage answers again.
func TestStorageDownSaidOnce(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	core, logs := observer.New(zap.InfoLevel)
	h.logger = zap.New(core)
	flaky := &flakyLoads{Storage: h.src.st, part: "current"} // no failures yet
	h.src.st = flaky                                         // before any goroutine reads it
	first := serve(t, h, staticPage(), "GET", "/a", nil)
	id := h.gen.Load().id
	flaky.failures.Store(1 << 20)
	for range 5 {
		h.reload(nil)
	}
	if w := serve(t, h, staticPage(), "GET", "/a", nil); w.Body.String() != first.Body.String() {
		t.Fatal("the page changed while storage was down")
	}
	if n := logs.FilterMessage("lazarus storage unavailable; serving the generation in memory until it answers").FilterField(zap.String("generation", id)).Len(); n != 1 {
		t.Fatalf("%d outage warnings naming generation %s, want 1; logs: %v", n, id, logs.All())
	}
	if n := logs.FilterMessage("reading lazarus bundle").Len(); n != 0 {
		t.Fatalf("%d errors saying the bundle cannot be read during an outage", n)
	}
	flaky.failures.Store(0)
	h.reload(nil)
	h.reload(nil)
	if n := logs.FilterMessage("lazarus storage answers again").Len(); n != 1 {
		t.Fatalf("%d 'answers again' lines, want 1", n)
	}
	flaky.failures.Store(1 << 20)
	h.reload(nil)
	if n := logs.FilterMessage("lazarus storage unavailable; serving the generation in memory until it answers").Len(); n != 2 {
		t.Fatalf("a second outage: %d warnings in all, want 2", n)
	}
}
