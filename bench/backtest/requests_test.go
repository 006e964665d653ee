package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

func TestRequestsTakenBecomeCapturesOfWhatIsServed(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, srv := testSite(t, t0)
	pages := []string{"/", "/s1/", "/s2/"}
	start := t0.Add(time.Hour)
	log := requestPlan{Success: 1, Attempts: 3}.captures(rand.New(rand.NewPCG(1, 1)), srv, pages, start)
	if log.Sent != 3 || log.Taken != 3 || len(log.Captures) != 3 {
		t.Fatalf("every request taken: %d sent, %d taken, %d captures; want 3 each", log.Sent, log.Taken, len(log.Captures))
	}
	for i, c := range log.Captures {
		sent := start.Add(time.Duration(i) * requestEvery)
		if c.URL != pages[i] || log.Asks[i].At != sent {
			t.Errorf("request %d: %s sent at %s, want %s at %s (one per %s, in order)", i, log.Asks[i].URL, log.Asks[i].At, pages[i], sent, requestEvery)
		}
		if c.Time.Before(sent.Add(requestFetch[0])) || c.Time.After(sent.Add(requestFetch[1])) || !c.Visible.After(c.Time) {
			t.Errorf("capture %d made %s, listed %s; want it fetched %v–%v after its request, listed later", i, c.Time, c.Visible, requestFetch[0], requestFetch[1])
		}
		if !bytes.Equal(c.Body, srv.at(c.URL, c.Time)) {
			t.Errorf("capture %d holds other bytes than the page served then", i)
		}
	}
}

func TestRequestsRefusedAreAskedAgainWithDoublingPauses(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	_, srv := testSite(t, t0)
	log := requestPlan{Success: 0, Attempts: 4}.captures(rand.New(rand.NewPCG(1, 1)), srv, []string{"/", "/s1/"}, t0)
	if log.Sent != 8 || log.Taken != 0 || len(log.Captures) != 0 {
		t.Fatalf("every request refused: %d sent, %d taken, %d captures; want 4 a page, nothing captured", log.Sent, log.Taken, len(log.Captures))
	}
	var root []time.Duration
	for _, a := range log.Asks {
		if a.URL == "/" {
			root = append(root, a.At.Sub(t0))
		}
	}
	want := []time.Duration{0, requestRetry, 3 * requestRetry, 7 * requestRetry}
	if !slices.Equal(root, want) {
		t.Errorf("the root page asked at %v after the start, want %v (pauses doubling)", root, want)
	}
}

func TestRequestOrderAsksRootThenManifestPagesThenCarriers(t *testing.T) {
	rep := &injector.Report{Pages: []injector.PageReport{
		{URL: "/a/", Blocks: 2}, {URL: "/b/", Blocks: 1, Manifest: true}, {URL: "/c/"}, {URL: "/", Blocks: 1, Manifest: true}, {URL: "/d/", Old: 3},
	}}
	if got, want := requestOrder(rep), []string{"/", "/b/", "/a/"}; !slices.Equal(got, want) {
		t.Errorf("asked for %v, want %v (pages without the new generation's blocks left out)", got, want)
	}
}

// TestRequestsModeRecoversEachGenerationWithinADay runs the requests
// mode on one world of seed 1 whose archive is a national library's
// (the requests go to a Wayback Machine of their own): each generation,
// planned for requests taken nine times in ten, is restored byte for
// byte from what the archives list a day after its publication, and
// confirmed by the audit then; its own blocks add at most twice its
// ciphertext; the second and third find the generation before them
// confirmed, and it leaves the pages at their publication (the archives
// hold it): the pages carry theirs alone.
func TestRequestsModeRecoversEachGenerationWithinADay(t *testing.T) {
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	e := worldEnv{seed: 1, keys: keyPair{Owner: owner.Marshal(), Server: server.Marshal()}, tmp: t.TempDir(),
		client: source.NewClient(source.ClientOptions{Rate: 600_000})}
	const ki = 4
	r, err := runRequestsWorld(context.Background(), kinds[ki], ki, 0, requestPlan{Success: 0.9, Attempts: 3}, e)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Generations) != len(generationDays) {
		t.Fatalf("%d generations, want %d", len(r.Generations), len(generationDays))
	}
	for i, g := range r.Generations {
		if g.Carriers < 30 || g.Sent < g.Carriers || g.Taken > g.Sent || g.Recoverability < injector.DefaultRequestsTarget {
			t.Errorf("generation %d: %d carriers, %d requests sent, %d taken, planned %.4f", i, g.Carriers, g.Sent, g.Taken, g.Recoverability)
		}
		if !g.WithinDay || !(g.Hours > 0 && g.Hours <= 24) || g.Confirmed != 24 {
			t.Errorf("generation %d: within a day %v, %.1f h to recoverable, confirmed after %v h; want recoverable and confirmed within the day", i, g.WithinDay, g.Hours, g.Confirmed)
		}
		if own := ratio(g.Own, g.Ciphertext); own > 2 || own < 1 {
			t.Errorf("generation %d: its own blocks add %.2f× its ciphertext, want 1× to 2×", i, own)
		}
		if i == 0 {
			continue
		}
		if prev := r.Generations[i-1].Generation; g.RestorePoint != prev || len(g.Kept) != 0 {
			t.Errorf("generation %d: restore point %q, kept %v; want the one before, %s, confirmed and left", i, g.RestorePoint, g.Kept, prev)
		}
		if g.OnPages != g.Own || g.Settled != g.Own {
			t.Errorf("generation %d: %d bytes of its own, %d on the pages, %d once confirmed; want its own alone", i, g.Own, g.OnPages, g.Settled)
		}
	}
	rep := requestsReport{Requests: requestPlan{Success: 0.9, Attempts: 3}, Seed: 1, Worlds: []requestsResult{r}}
	rep.tally()
	if o := rep.Overall; o.Generations != 3 || o.WithinDay != 1 || !slices.Equal(o.ByGeneration, []float64{1, 1, 1}) || o.MedianHours <= 0 || o.P95Hours > 24 || o.Third.N != 1 || o.Within[len(o.Within)-1].Share != 1 {
		t.Errorf("overall table %+v: want 3 generations, all recoverable within a day", o)
	}
	var out bytes.Buffer
	rep.print(&out)
	for _, want := range []string{"each taken with 90%, a page asked up to 3 times", kinds[ki].Name + " (1 worlds, 3 generations)",
		"recoverable within 1 day (the real recover, byte for byte): 1.000", "time to recoverable: median", "all kinds (1 worlds"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out.String())
		}
	}
}
