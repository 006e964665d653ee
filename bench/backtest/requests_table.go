package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// requestsReport is the requests mode's outcome: every world, and the
// tables per kind and over all.
type requestsReport struct {
	Requests requestPlan      `json:"requests"`
	Seed     uint64           `json:"seed"`
	Kinds    []requestsTable  `json:"kinds"`
	Overall  requestsTable    `json:"overall"`
	Worlds   []requestsResult `json:"worlds"`
	Seconds  float64          `json:"seconds"`
}

// requestsTable is what became of one kind's generations (or all).
type requestsTable struct {
	Kind        string `json:"kind"`
	Worlds      int    `json:"worlds"`
	Generations int    `json:"generations"`
	// WithinDay is the share of generations the real recover restored
	// byte for byte from what the archives listed a day after their
	// publication, with its standard error.
	WithinDay    float64 `json:"recoverable_within_day"`
	WithinDayErr float64 `json:"recoverable_within_day_stderr"`
	// ByGeneration is WithinDay for the first, second and third
	// generation of the worlds: the first has no earlier one kept beside
	// it on the pages.
	ByGeneration []float64 `json:"recoverable_within_day_by_generation"`
	// Confirmed is the share of generations the nightly audit a day
	// after found to be the restore point.
	Confirmed float64 `json:"confirmed_within_day"`
	// The hours from publication to recoverable: median and 95th
	// percentile (nearest rank), −1 when beyond measureHorizon; and the
	// share recoverable within each of checkOffsets.
	MedianHours float64        `json:"median_hours"`
	P95Hours    float64        `json:"p95_hours"`
	Within      []offsetShare  `json:"recoverable_within"`
	Own         ratioSummary   `json:"own_bytes_ratio"`     // its own blocks and manifest over its ciphertext, every generation
	Third       ratioSummary   `json:"third_on_pages"`      // the third generation: every Lazarus byte on the pages at publication over its ciphertext
	Settled     ratioSummary   `json:"third_settled"`       // the same after the nightly inject that follows its confirmation
	Plan        requestsMedian `json:"per_generation"`      // medians per generation
	Unconfirmed int            `json:"unconfirmed_in_72_h"` // generations no nightly audit confirmed within measureHorizon
}

// offsetShare is the share of generations recoverable within Hours.
type offsetShare struct {
	Hours float64 `json:"hours"`
	Share float64 `json:"share"`
}

// ratioSummary is a ratio's median and most over generations.
type ratioSummary struct {
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"generations"`
}

// requestsMedian is what a generation's plan and requests were, medians.
type requestsMedian struct {
	Carriers float64 `json:"carriers"`
	Survives float64 `json:"survives_loss_of"`
	Sent     float64 `json:"requests_sent"`
	Taken    float64 `json:"requests_taken"`
}

// checkOffsets are the offsets from publication the tables give the
// share recoverable within.
var checkOffsets = []time.Duration{time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, day, measureHorizon}

// tally makes the tables.
func (r *requestsReport) tally() {
	r.Kinds, r.Overall = byKind(r.Worlds, func(w requestsResult) string { return w.Kind }, tallyRequests)
}

// tallyRequests makes the table of worlds ws.
func tallyRequests(name string, ws []requestsResult) requestsTable {
	t := requestsTable{Kind: name, Worlds: len(ws)}
	var hours, own, third, settled, carriers, survives, sent, taken []float64
	within, confirmed := 0, 0
	byGen, genN := make([]float64, len(generationDays)), make([]float64, len(generationDays))
	for _, w := range ws {
		for gi, g := range w.Generations {
			t.Generations++
			genN[gi]++
			if g.WithinDay {
				within++
				byGen[gi]++
			}
			if g.Confirmed >= 0 && g.Confirmed <= 24 {
				confirmed++
			}
			if g.Confirmed < 0 {
				t.Unconfirmed++
			}
			h := g.Hours
			if h < 0 {
				h = math.Inf(1)
			}
			hours = append(hours, h)
			own = append(own, ratio(g.Own, g.Ciphertext))
			if gi == 2 {
				third = append(third, ratio(g.OnPages, g.Ciphertext))
				if g.Settled > 0 {
					settled = append(settled, ratio(g.Settled, g.Ciphertext))
				}
			}
			carriers, survives = append(carriers, float64(g.Carriers)), append(survives, float64(g.Survives))
			sent, taken = append(sent, float64(g.Sent)), append(taken, float64(g.Taken))
		}
	}
	if n := float64(t.Generations); n > 0 {
		t.WithinDay, t.Confirmed = float64(within)/n, float64(confirmed)/n
		t.WithinDayErr = math.Sqrt(t.WithinDay * (1 - t.WithinDay) / n)
	}
	for gi := range byGen {
		if genN[gi] > 0 {
			byGen[gi] /= genN[gi]
		}
	}
	t.ByGeneration = byGen
	slices.Sort(hours)
	t.MedianHours, t.P95Hours = finite(rank(hours, 0.5)), finite(rank(hours, 0.95))
	for _, o := range checkOffsets {
		n := 0
		for _, h := range hours {
			if h <= o.Hours() {
				n++
			}
		}
		s := offsetShare{Hours: o.Hours()}
		if len(hours) > 0 {
			s.Share = float64(n) / float64(len(hours))
		}
		t.Within = append(t.Within, s)
	}
	t.Own, t.Third, t.Settled = summarise(own), summarise(third), summarise(settled)
	t.Plan = requestsMedian{Carriers: median(carriers), Survives: median(survives), Sent: median(sent), Taken: median(taken)}
	return t
}

// ratio is a over b.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// rank is the p-quantile of sorted xs by nearest rank, NaN for none.
func rank(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[max(0, int(math.Ceil(p*float64(len(sorted))))-1)]
}

// finite maps an infinite (censored) or missing value to −1.
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return -1
	}
	return x
}

// summarise is xs's median and most.
func summarise(xs []float64) ratioSummary {
	s := ratioSummary{Median: median(xs), N: len(xs)}
	if len(xs) > 0 {
		s.Max = slices.Max(xs)
	}
	return s
}

// print writes the tables.
func (r *requestsReport) print(w io.Writer) {
	fmt.Fprintf(w, "capture requests after each inject: each taken with %.0f%%, a page asked up to %d times (seed %d)\n",
		100*r.Requests.Success, r.Requests.Attempts, r.Seed)
	for _, t := range append(slices.Clone(r.Kinds), r.Overall) {
		t.print(w)
	}
	fmt.Fprintf(w, "\n%d worlds in %.0f s\n", len(r.Worlds), r.Seconds)
}

// print writes one kind's table.
func (t requestsTable) print(w io.Writer) {
	fmt.Fprintf(w, "\n%s (%d worlds, %d generations)\n", t.Kind, t.Worlds, t.Generations)
	var gens []string
	for _, p := range t.ByGeneration {
		gens = append(gens, fmt.Sprintf("%.3f", p))
	}
	fmt.Fprintf(w, "  recoverable within 1 day (the real recover, byte for byte): %.3f ± %.3f (by generation %s); confirmed by the audit a day after: %.3f; not confirmed within 72 h: %d\n",
		t.WithinDay, t.WithinDayErr, strings.Join(gens, ", "), t.Confirmed, t.Unconfirmed)
	var parts []string
	for _, o := range t.Within {
		parts = append(parts, fmt.Sprintf("%s %.3f", hoursText(o.Hours), o.Share))
	}
	fmt.Fprintf(w, "  time to recoverable: median %s, p95 %s; within %s\n", hoursText(t.MedianHours), hoursText(t.P95Hours), strings.Join(parts, ", "))
	fmt.Fprintf(w, "  bytes over the ciphertext: its own blocks and manifest %.2f× (median; most %.2f×); the third generation with every generation on the pages %.2f× (most %.2f×), %.2f× after the nightly inject that follows its confirmation (most %.2f×)\n",
		t.Own.Median, t.Own.Max, t.Third.Median, t.Third.Max, t.Settled.Median, t.Settled.Max)
	fmt.Fprintf(w, "  per generation (medians): %.0f carrier pages, survives the loss of %.0f; %.0f requests sent, %.0f taken\n",
		t.Plan.Carriers, t.Plan.Survives, t.Plan.Sent, t.Plan.Taken)
}

// hoursText writes hours, −1 as beyond measureHorizon.
func hoursText(h float64) string {
	switch {
	case h < 0:
		return fmt.Sprintf("> %.0f h", measureHorizon.Hours())
	case h < 10 && h != math.Trunc(h):
		return fmt.Sprintf("%.1f h", h)
	}
	return fmt.Sprintf("%.0f h", h)
}
