package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// TestBacktestForecastsAndRecovers runs the whole pipeline on three
// worlds of seed 1: an established site the Wayback Machine crawls
// (status forecasts strictly between 0 and 1, and the real recover
// restores the newest generation within 30 days), a new site no crawler
// has found (nothing restored) and a site of two archives (each read
// alone: the Wayback Machine holds the newest generation at day 150, as
// status's held_by says, and Common Crawl's crawl published after it
// brings a second archive within 30 days): the forecasts are computed
// and the outcomes are not all alike.
func TestBacktestForecastsAndRecovers(t *testing.T) {
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	kp := keyPair{Owner: owner.Marshal(), Server: server.Marshal()}
	client := source.NewClient(source.ClientOptions{Rate: 600_000})
	var rs []result
	for _, w := range []struct{ kind, world int }{{0, 0}, {2, 3}, {1, 3}} {
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
		if len(r.Inject) != 3 || r.Inject[0].Days != 1 || r.Inject[2].Days != 30 || !(r.Inject[0].P <= r.Inject[2].P && r.Inject[2].P < 1) {
			t.Errorf("%s, world %d: inject's outlook %+v, want 1, 7 and 30 days, below 1", r.Kind, r.World, r.Inject)
		}
		rs = append(rs, r)
	}
	if p := rs[0].Predicted; !(p[1] > 0 && p[1] < 1) {
		t.Errorf("established site: forecast within 30 days %v, want strictly between 0 and 1", p[1])
	}
	if !rs[0].Restored[1] || rs[0].Truth[0].Crawls == 0 {
		t.Errorf("established site: restored %v within 7 and 30 days, %d crawls; want the newest generation back within 30", rs[0].Restored, rs[0].Truth[0].Crawls)
	}
	if rs[1].Restored[1] || rs[1].Any[1] || rs[1].Truth[0].Crawls != 0 || rs[1].Inject[2].Restored {
		t.Errorf("new site: restored %v (some restore point %v; 30 days after the inject %v), %d crawls; want nothing",
			rs[1].Restored, rs[1].Any, rs[1].Inject[2].Restored, rs[1].Truth[0].Crawls)
	}
	if len(rs[0].Alone) != 0 || rs[0].TwoArchives != nil {
		t.Errorf("one archive: alone %+v, two archives %v; want none", rs[0].Alone, rs[0].TwoArchives)
	}
	two := rs[2]
	if len(two.Alone) != 2 || len(two.TwoArchives) != len(horizons) {
		t.Fatalf("two archives: alone %+v, two archives %v", two.Alone, two.TwoArchives)
	}
	for _, a := range two.Alone {
		if len(a.Predicted) != len(horizons) || len(a.Restored) != len(horizons) || a.HeldNow != a.RestoredNow {
			t.Errorf("two archives: %+v; want a forecast and an outcome per horizon, held_by as recover found", a)
		}
	}
	if wb, cc := two.Alone[0], two.Alone[1]; wb.Protocol != "wayback" || !wb.RestoredNow || cc.Protocol != "commoncrawl" || cc.RestoredNow || !cc.Restored[1] {
		t.Errorf("two archives: %+v; want the Wayback Machine holding it at day 150, Common Crawl within 30 days", two.Alone)
	}
	rep := report{Worlds: rs}
	rep.tally()
	if o := rep.Overall; o.Worlds != 3 || o.NoForecast != 0 || o.Horizons[1].Worlds != 3 || o.Horizons[1].Realised < 0.6 {
		t.Errorf("overall table %+v: want 3 worlds, two restored within 30 days", o)
	}
	if o := rep.Overall; len(o.TwoArchives) != len(horizons) || o.TwoArchives[1].Worlds != 1 || o.TwoArchives[1].Realised != 1 || o.HeldBy != (heldByCheck{Agreed: 1}) {
		t.Errorf("overall two archives %+v, held_by %+v: want one world, two archives within 30 days, held_by right", o.TwoArchives, o.HeldBy)
	}
	var out bytes.Buffer
	rep.print(&out)
	for _, want := range []string{"within 30 days: predicted", kinds[0].Name, kinds[2].Name, "all kinds (3 worlds", "two_archives", "wayback alone",
		"held_by at day 150", "inject's outlook of the newest generation (the prior) within 1 day of"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out.String())
		}
	}
}

func TestBacktestRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--worlds", "0"}, {"--workers", "0"}, {"--requests-success", "1.5"}, {"--request-attempts", "0"}, {"extra"}, {"--nope"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
