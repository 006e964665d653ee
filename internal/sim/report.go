package sim

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Report is what Run measured.
type Report struct {
	Config Config `json:"config"`
	// Cells has one entry per policy, capture requests off and on, and
	// rotation: requests off first, policies in Policies order,
	// make-before-break before break-before-make.
	Cells []Cell `json:"cells"`
	// Goals compares the cells with the placement goals (see Goals); it asserts nothing.
	Goals Goals `json:"goals"`
	// Plans describes the lazarus plans, generation by generation.
	Plans []PlanStats `json:"plans"`
}

// Cell is the figures of one policy under one request mode and rotation,
// over every run. Durations are in days; a nil duration means "never"
// (more than the quantile's share of cases never got there in the run).
type Cell struct {
	Policy   string `json:"policy"`
	Requests bool   `json:"requests"`
	Rotation string `json:"rotation"`
	// Generations is how many generations were followed (runs ×
	// generations per run).
	Generations int `json:"generations"`
	// PRec1, PRec7 and PRec30 are the fractions of generations
	// recoverable 1, 7 and 30 days after their publication.
	PRec1  float64 `json:"p_rec_1d"`
	PRec7  float64 `json:"p_rec_7d"`
	PRec30 float64 `json:"p_rec_30d"`
	// TimeToSafe is the median days from a generation's publication until
	// it is recoverable.
	TimeToSafe *float64 `json:"time_to_safe_median_days"`
	// TimeToSafe95 is the 95th percentile of the same days.
	TimeToSafe95 *float64 `json:"time_to_safe_p95_days"`
	// FirstSafe is the median day the site's first recoverable generation
	// became so.
	FirstSafe *float64 `json:"first_safe_median_days"`
	// RecoveryPoint50 and RecoveryPoint95 are the median and 95th
	// percentile, over every hour of every run that has a recoverable
	// generation, of the newest one's age.
	RecoveryPoint50 *float64 `json:"recovery_point_age_median_days"`
	RecoveryPoint95 *float64 `json:"recovery_point_age_p95_days"`
	// NoRecoverable is the fraction of time with no recoverable
	// generation at all.
	NoRecoverable float64 `json:"no_recoverable_fraction"`
	// UnsafeDrops counts generations whose blocks left the pages while
	// neither they nor any newer generation were recoverable.
	UnsafeDrops int `json:"unsafe_drops"`
	// GenerationBytes is the mean bytes one generation adds to the pages
	// (equal for every policy of a run, up to all-pages' rounding).
	GenerationBytes float64 `json:"generation_bytes"`
	// PeakBytes is the mean, over runs, of the most bytes the pages carry
	// at once (the newest generation and those kept by rotation).
	PeakBytes float64 `json:"peak_bytes"`
	// PageMaxBytes is the most bytes one page carried at once in any run.
	PageMaxBytes int `json:"page_max_bytes"`
	// RequestsPerGeneration is the mean capture requests per generation.
	RequestsPerGeneration float64 `json:"requests_per_generation"`
}

// Goals sets the cells beside the placement goals.
type Goals struct {
	// LazarusPRec30 and RoundRobinPRec30 are P_rec 30 days after
	// publication, requests off, make-before-break; Gain30 is their
	// relative difference (goal: at least 0.2). Gain7 is the same at 7
	// days.
	LazarusPRec30    float64 `json:"lazarus_p_rec_30d"`
	RoundRobinPRec30 float64 `json:"round_robin_p_rec_30d"`
	Gain30           float64 `json:"gain_30d"`
	Gain7            float64 `json:"gain_7d"`
	// UnsafeDrops counts, over every policy and request mode, unsafe drops
	// under each rotation (goal: none under make-before-break).
	UnsafeDropsMakeBeforeBreak int `json:"unsafe_drops_make_before_break"`
	UnsafeDropsBreakBeforeMake int `json:"unsafe_drops_break_before_make"`
	// NoRecoverable is the lazarus plan's fraction of time with no
	// recoverable generation under make-before-break, requests off and
	// on: all of it before the site's first generation is recoverable.
	NoRecoverableOff float64 `json:"no_recoverable_fraction_requests_off"`
	NoRecoverableOn  float64 `json:"no_recoverable_fraction_requests_on"`
	// TimeToSafeOff and TimeToSafeOn are the lazarus plan's median days to
	// recoverable, make-before-break, without and with capture requests
	// (goal: from weeks to under a day).
	TimeToSafeOff *float64 `json:"time_to_safe_median_days_requests_off"`
	TimeToSafeOn  *float64 `json:"time_to_safe_median_days_requests_on"`
}

// newReport turns the cells' tallies into figures.
func newReport(c Config, cs []cell, ts []tally) *Report {
	rep := &Report{Config: c}
	for i, x := range cs {
		rep.Cells = append(rep.Cells, newCell(x, &ts[i]))
	}
	rep.Goals = rep.goals()
	return rep
}

// newCell computes one cell's figures.
func newCell(x cell, t *tally) Cell {
	out := Cell{Policy: x.policy.String(), Requests: x.requests, Rotation: x.rotation.String(), Generations: t.gens,
		TimeToSafe: finite(quantile(t.toSafe, 0.5)), TimeToSafe95: finite(quantile(t.toSafe, 0.95)), FirstSafe: finite(quantile(t.firstSafe, 0.5)),
		RecoveryPoint50: finite(histQuantile(t.age, 0.5)), RecoveryPoint95: finite(histQuantile(t.age, 0.95)),
		UnsafeDrops: t.unsafeDrops, PageMaxBytes: t.pageMax}
	if t.gens > 0 {
		g := float64(t.gens)
		out.PRec1, out.PRec7, out.PRec30 = float64(t.recAt[0])/g, float64(t.recAt[1])/g, float64(t.recAt[2])/g
		out.GenerationBytes = t.genBytes / g
		out.RequestsPerGeneration = float64(t.requests) / g
	}
	if t.ticks > 0 {
		out.NoRecoverable = float64(t.none) / float64(t.ticks)
	}
	for _, p := range t.peak {
		out.PeakBytes += p / float64(len(t.peak))
	}
	return out
}

// finite returns x, or nil when it is infinite or NaN.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// find returns the cell of policy p, request mode req and rotation r.
func (rep *Report) find(p Policy, req bool, r Rotation) *Cell {
	for i := range rep.Cells {
		c := &rep.Cells[i]
		if c.Policy == p.String() && c.Requests == req && c.Rotation == r.String() {
			return c
		}
	}
	return &Cell{}
}

// goals compares the cells with the placement goals.
func (rep *Report) goals() Goals {
	laz, rr := rep.find(Lazarus, false, MakeBeforeBreak), rep.find(RoundRobin, false, MakeBeforeBreak)
	on := rep.find(Lazarus, true, MakeBeforeBreak)
	g := Goals{LazarusPRec30: laz.PRec30, RoundRobinPRec30: rr.PRec30,
		Gain30: gain(laz.PRec30, rr.PRec30), Gain7: gain(laz.PRec7, rr.PRec7),
		NoRecoverableOff: laz.NoRecoverable, NoRecoverableOn: on.NoRecoverable,
		TimeToSafeOff: laz.TimeToSafe, TimeToSafeOn: on.TimeToSafe}
	for _, c := range rep.Cells {
		if c.Rotation == MakeBeforeBreak.String() {
			g.UnsafeDropsMakeBeforeBreak += c.UnsafeDrops
		} else {
			g.UnsafeDropsBreakBeforeMake += c.UnsafeDrops
		}
	}
	return g
}

// gain is a/b − 1, 0 when b is 0.
func gain(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a/b - 1
}

// WriteText writes the report as a table and the goals, for people.
func (rep *Report) WriteText(w io.Writer) error {
	c := rep.Config
	fmt.Fprintf(w, "%d runs, %d pages, %s backup, %g days, a generation every %g days, seed %d\n",
		c.Runs, c.Pages, kib(float64(c.Backup)), c.Days, c.ChangeEvery, c.Seed)
	fmt.Fprintf(w, "P_rec: share of generations recoverable 1/7/30 days after publication; safe, safe p95: median and 95th percentile of the days to recoverable;\n")
	fmt.Fprintf(w, "RPO: age of the newest recoverable generation (median, p95); none: share of time with no recoverable generation;\n")
	fmt.Fprintf(w, "unsafe: generations dropped with nothing recoverable to fall back on; bytes: per generation, peak at once (mean),\n")
	fmt.Fprintf(w, "most on one page (kept generations are not fitted to the page budget here: the peak is what keeping them all costs)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\trequests\trotation\tP+1d\tP+7d\tP+30d\tsafe\tsafe p95\tRPO p50\tRPO p95\tnone\tunsafe\tKiB/gen\tpeak KiB\tpage KiB\treq/gen\t")
	for _, x := range rep.Cells {
		req := "off"
		if x.Requests {
			req = "on"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%.1f%%\t%d\t%s\t%s\t%s\t%.1f\t\n",
			x.Policy, req, x.Rotation, x.PRec1, x.PRec7, x.PRec30, days(x.TimeToSafe), days(x.TimeToSafe95), days(x.RecoveryPoint50),
			days(x.RecoveryPoint95), 100*x.NoRecoverable, x.UnsafeDrops, kibs(x.GenerationBytes), kibs(x.PeakBytes),
			kibs(float64(x.PageMaxBytes)), x.RequestsPerGeneration)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nLazarus plans by generation (mean over runs): bytes added / ciphertext, the plan's own P_rec under the\n")
	fmt.Fprintf(w, "capture probabilities it was made with (learned: status had seen captures), plans short of the target, P+30d:\n")
	for _, p := range rep.Plans {
		fmt.Fprintf(w, "  day %3g: learned %3.0f%%, %5.1f× ciphertext, planned %.3f, short of %g: %3.0f%%, P+30d %.3f\n",
			p.Day, 100*p.Learned, p.BytesRatio, p.Planned, c.Target, 100*p.BelowTarget, p.Recoverable30)
	}
	g := rep.Goals
	fmt.Fprintf(w, "\nGoals, requests off and make-before-break unless said:\n")
	fmt.Fprintf(w, "  P_rec at equal bytes, lazarus vs round-robin: +30 d %.3f vs %.3f (%+.0f%%), +7 d %+.0f%% (goal: +20%% or more)\n",
		g.LazarusPRec30, g.RoundRobinPRec30, 100*g.Gain30, 100*g.Gain7)
	fmt.Fprintf(w, "  unsafe drops, all policies and request modes summed: make-before-break %d (goal: 0), break-before-make %d\n",
		g.UnsafeDropsMakeBeforeBreak, g.UnsafeDropsBreakBeforeMake)
	fmt.Fprintf(w, "  time with no recoverable generation (lazarus, all before the first one is): requests off %.1f%%, on %.1f%%\n",
		100*g.NoRecoverableOff, 100*g.NoRecoverableOn)
	_, err := fmt.Fprintf(w, "  capture requests, lazarus median time to safe: off %s, on %s (goal: weeks to under a day)\n",
		days(g.TimeToSafeOff), days(g.TimeToSafeOn))
	return err
}

// days prints a duration in days, in hours under one, "never" for nil.
func days(d *float64) string {
	switch {
	case d == nil:
		return "never"
	case *d < 1:
		return fmt.Sprintf("%.1f h", *d*24)
	}
	return fmt.Sprintf("%.1f d", *d)
}

// kib prints bytes in KiB or MiB.
func kib(b float64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", b/(1<<10))
}

// kibs prints bytes as a number of KiB, for the table.
func kibs(b float64) string { return fmt.Sprintf("%.0f", b/(1<<10)) }
