package sim

// PlanStats describes the lazarus plans made for the i-th generation of
// every run: what the planner expected and what it cost.
type PlanStats struct {
	// Day is the generation's publication day.
	Day float64 `json:"day"`
	// Learned reports that status had seen captures by then, so the plan
	// used learned capture probabilities (else placement's default 0.5).
	// It is the share of runs where it had.
	Learned float64 `json:"learned"`
	// BytesRatio is the mean of the bytes the plan adds to the pages over
	// the backup's ciphertext bytes.
	BytesRatio float64 `json:"bytes_ratio"`
	// Planned is the mean of the plan's own recoverability
	// (placement.Plan.Recoverability) under those probabilities, pages
	// independent.
	Planned float64 `json:"planned_p_rec"`
	// BelowTarget is the share of plans whose own recoverability falls
	// short of Config.Target.
	BelowTarget float64 `json:"below_target"`
	// Recoverable30 is the share of those generations recoverable 30 days
	// after publication (requests off, make-before-break): what the plan
	// expected, as it happened.
	Recoverable30 float64 `json:"recoverable_30d"`
}

// planTally accumulates PlanStats over runs, per generation index.
type planTally struct {
	runs                                  int
	learned, ratio, planned, below, rec30 []float64
}

// add tallies one run's lazarus generations and their outcomes (requests
// off, make-before-break).
func (t *planTally) add(c *Config, gens []genInput, learned []bool, outs []outcome) {
	t.init(len(gens))
	t.runs++
	for i, g := range gens {
		t.learned[i] += b2f(learned[i])
		t.ratio[i] += float64(g.l.total()) / float64(c.Backup)
		t.planned[i] += g.l.planned
		t.below[i] += b2f(g.l.planned < c.Target)
		t.rec30[i] += b2f(outs[i].safe-g.at <= 30)
	}
}

// merge adds the tally of later runs.
func (t *planTally) merge(o *planTally) {
	if o.runs == 0 {
		return
	}
	t.init(len(o.ratio))
	t.runs += o.runs
	for i := range o.ratio {
		t.learned[i] += o.learned[i]
		t.ratio[i] += o.ratio[i]
		t.planned[i] += o.planned[i]
		t.below[i] += o.below[i]
		t.rec30[i] += o.rec30[i]
	}
}

// init sizes an empty tally for n generations.
func (t *planTally) init(n int) {
	if t.ratio == nil {
		t.learned, t.ratio, t.planned = make([]float64, n), make([]float64, n), make([]float64, n)
		t.below, t.rec30 = make([]float64, n), make([]float64, n)
	}
}

// stats returns the means, generation by generation.
func (t *planTally) stats(c *Config) []PlanStats {
	var out []PlanStats
	n := float64(t.runs)
	for i, day := range c.generations() {
		if t.runs == 0 || i >= len(t.ratio) {
			break
		}
		out = append(out, PlanStats{Day: day, Learned: t.learned[i] / n, BytesRatio: t.ratio[i] / n,
			Planned: t.planned[i] / n, BelowTarget: t.below[i] / n, Recoverable30: t.rec30[i] / n})
	}
	return out
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
