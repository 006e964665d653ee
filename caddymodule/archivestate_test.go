package caddymodule

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// TestGenerationStateSurvivesRestart: a generation loaded, asked of Save
// Page Now and found in the archive is recorded published, requested
// (sent and taken) and confirmed in storage, exported as gauges and
// logged at each change; an instance started afresh on the same storage
// exports the same times, and its next build plans for the requests as
// measured on those recorded.
func TestGenerationStateSurvivesRestart(t *testing.T) {
	f := newCaptureFixture(t)
	a, logs := f.handler(t, f.good)
	f.serving = a
	mustBuild(t, a, "new")
	g := a.current()
	a.background.Wait() // the switch's record of the publication
	if v := metricValue(t, a.metrics.genState.WithLabelValues(a.Name, genstate.StatePublished)); v != 1 {
		t.Fatalf("generation_state{published} %v after the switch, want 1", v)
	}
	if r, err := a.auditor.capturer.request(context.Background(), g, true); err != nil || r.Result != "safe" {
		t.Fatalf("capture requests: %+v, %v", r, err)
	}
	rec, err := a.loadArchiveState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Find(g.id)
	if e == nil || e.State() != genstate.StateConfirmed || len(e.Requested) != 1 || e.Requested[0].Taken == 0 || !e.Requested[0].Keyed || len(e.ConfirmedIn) == 0 {
		t.Fatalf("recorded %+v; want the generation requested (keyed, some taken) and confirmed, in an archive", e)
	}
	sent := e.Requested[0].Sent
	want := map[[2]string]float64{
		{genstate.StatePublished, ""}:                       unix(e.Published),
		{genstate.StateRequested, "wayback"}:                unix(e.Requested[0].First),
		{genstate.StateConfirmed, ""}:                       unix(e.Confirmed),
		{genstate.StateConfirmed, e.ConfirmedIn[0].Archive}: unix(e.ConfirmedIn[0].Seen),
	}
	checkStateGauges := func(h *Handler, who string) {
		t.Helper()
		if v := metricValue(t, h.metrics.genState.WithLabelValues(h.Name, genstate.StateConfirmed)); v != 1 {
			t.Errorf("%s: generation_state{confirmed} %v, want 1", who, v)
		}
		for k, w := range want {
			if got := metricValue(t, h.metrics.genStateTime.WithLabelValues(h.Name, k[0], k[1])); got != w {
				t.Errorf("%s: generation_state_timestamp_seconds{%s, %q} %v, want %v", who, k[0], k[1], got, w)
			}
		}
	}
	checkStateGauges(a, "the instance that asked")
	var states []string
	for _, l := range logs.FilterMessage("lazarus generation state").All() {
		states = append(states, l.ContextMap()["state"].(string))
	}
	if strings.Join(states, ",") != "published,confirmed" {
		t.Errorf("state changes logged: %v; want published, then confirmed", states)
	}

	// Expected: a restart reads the record back: the same gauges, and
	// the next build counts on the requests as measured.
	b, blogs := f.handler(t, f.good)
	f.serving = b
	b.current()
	b.background.Wait()
	checkStateGauges(b, "the restarted instance")
	writeFile(t, filepath.Join(f.bf.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES (2);\n"))
	b.builder.every = 1 // build again at once
	mustBuild(t, b, "new")
	built := blogs.FilterMessage("built lazarus generation").All()
	if len(built) != 1 || !strings.Contains(built[0].ContextMap()["capture_requests"].(string), fmt.Sprintf("measured on %d earlier requests", sent)) {
		t.Errorf("build log %v; want it planned on the %d requests recorded", built, sent)
	}
}

// unix is t as the timestamp gauges give it.
func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
