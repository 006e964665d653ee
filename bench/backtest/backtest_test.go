package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// TestBacktestForecastsAndRecovers runs the whole pipeline on two worlds
// of seed 1: an established site the Wayback Machine crawls (status
// forecasts strictly between 0 and 1, and the real recover restores the
// newest generation within 30 days) and a new site no crawler has found
// (nothing restored): the forecasts are computed and the outcomes are
// not all alike.
func TestBacktestForecastsAndRecovers(t *testing.T) {
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	kp := keyPair{Owner: owner.Marshal(), Server: server.Marshal()}
	client := source.NewClient(source.ClientOptions{Rate: 600_000})
	var rs []result
	for _, w := range []struct{ kind, world int }{{0, 0}, {2, 3}} {
		r, err := runWorld(context.Background(), kinds[w.kind], w.kind, w.world, 1, kp, t.TempDir(), client)
		if err != nil {
			t.Fatalf("%s, world %d: %v", kinds[w.kind].Name, w.world, err)
		}
		if r.Error != "" || len(r.Predicted) != len(horizons) {
			t.Fatalf("%s, world %d: no forecast: %s", r.Kind, r.World, r.Error)
		}
		for i, p := range r.Predicted {
			if !(p >= 0 && p <= 1) || i > 0 && p < r.Predicted[i-1] {
				t.Errorf("%s, world %d: forecasts %v, want non-decreasing probabilities", r.Kind, r.World, r.Predicted)
			}
		}
		if r.Pages < 35 || r.Carriers == 0 || r.DepthKnown != r.Pages {
			t.Errorf("%s, world %d: status modelled %d pages, %d carriers, %d depths known", r.Kind, r.World, r.Pages, r.Carriers, r.DepthKnown)
		}
		rs = append(rs, r)
	}
	if p := rs[0].Predicted; !(p[1] > 0 && p[1] < 1) {
		t.Errorf("established site: forecast within 30 days %v, want strictly between 0 and 1", p[1])
	}
	if !rs[0].Restored[1] || rs[0].Truth[0].Crawls == 0 {
		t.Errorf("established site: restored %v within 7 and 30 days, %d crawls; want the newest generation back within 30", rs[0].Restored, rs[0].Truth[0].Crawls)
	}
	if rs[1].Restored[1] || rs[1].Any[1] || rs[1].Truth[0].Crawls != 0 {
		t.Errorf("new site: restored %v (some restore point %v), %d crawls; want nothing", rs[1].Restored, rs[1].Any, rs[1].Truth[0].Crawls)
	}
	rep := report{Worlds: rs}
	rep.tally()
	if o := rep.Overall; o.Worlds != 2 || o.NoForecast != 0 || o.Horizons[1].Worlds != 2 || o.Horizons[1].Realised != 0.5 {
		t.Errorf("overall table %+v: want 2 worlds, one restored within 30 days", o)
	}
	var out bytes.Buffer
	rep.print(&out)
	for _, want := range []string{"within 30 days: predicted", kinds[0].Name, kinds[2].Name, "all kinds (2 worlds"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out.String())
		}
	}
}

func TestBacktestRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--worlds", "0"}, {"--workers", "0"}, {"extra"}, {"--nope"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
