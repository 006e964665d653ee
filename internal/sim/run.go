package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
)

// backupSegment names the simulated backup's one segment.
const backupSegment = "backup"

// requestAudit is the days after publication when the capture tool
// checks whether the generation is recoverable and, if not, asks for the
// remaining carriers.
const requestAudit = 1.0

// Random streams of one run: each draws from its own PCG stream, so that
// a change in one part (say, the random policy) leaves the others' draws
// alone.
const (
	streamSite = iota
	streamRandomPolicy
	streamRequests // + cell index
)

// cell is one combination the report has a row for.
type cell struct {
	policy   Policy
	requests bool
	rotation Rotation
}

// cells lists the report's rows in order.
func cells() []cell {
	var out []cell
	for _, req := range []bool{false, true} {
		for _, p := range Policies() {
			for _, r := range []Rotation{MakeBeforeBreak, BreakBeforeMake} {
				out = append(out, cell{policy: p, requests: req, rotation: r})
			}
		}
	}
	return out
}

// Run simulates c.Runs sites and reports, per policy, with capture
// requests off and on and with both rotations, how recoverable each
// generation became and when. It is deterministic for a given c (Workers
// aside) and stops early, returning ctx's error, when ctx is done. A bad
// Config gives an error wrapping ErrInvalid.
func Run(ctx context.Context, c Config) (*Report, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	workers := c.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]*runResult, c.Runs)
	errs := make([]error, c.Runs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, c.Runs) {
		wg.Go(func() {
			for r := range next {
				results[r], errs[r] = simulateRun(&c, r)
			}
		})
	}
feed:
	for r := range c.Runs {
		select {
		case next <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cs := cells()
	total := make([]tally, len(cs))
	var plans planTally
	for r, res := range results {
		if errs[r] != nil {
			return nil, fmt.Errorf("run %d: %w", r, errs[r])
		}
		for i := range total {
			total[i].merge(&res.cells[i])
		}
		plans.merge(&res.plans)
	}
	rep := newReport(c, cs, total)
	rep.Plans = plans.stats(&c)
	return rep, nil
}

// stream returns run r's random stream k.
func stream(c *Config, r, k int) *rand.Rand {
	return rand.New(rand.NewPCG(c.Seed, uint64(r)<<16|uint64(k)))
}

// runResult is what one run adds to the report.
type runResult struct {
	cells []tally // in cells() order
	plans planTally
}

// simulateRun simulates run r: one site, its archive's captures, each
// generation's layout under every policy, and the accounting of every
// cell.
func simulateRun(c *Config, r int) (*runResult, error) {
	rng := stream(c, r, streamSite)
	s := newSite(c, rng)
	end := c.Days + followDays
	natural := naturalCaptures(s, -c.History, end, rng)
	gens, learned, err := layouts(c, r, s, natural)
	if err != nil {
		return nil, err
	}
	cs := cells()
	res := &runResult{cells: make([]tally, len(cs))}
	out := res.cells
	for i, x := range cs {
		o := ledgerOptions{rotation: x.rotation, check: c.Check, maxAge: c.MaxAge, end: end,
			requests: x.requests, success: c.RequestSuccess, attempts: c.RequestAttempts, delay: c.RequestDelay, audit: requestAudit}
		if x.rotation == BreakBeforeMake {
			o.maxAge = 0
		}
		g := gens[x.policy]
		outs := account(g, natural, o, stream(c, r, streamRequests+i))
		out[i].add(c, g, outs, end)
		if x == (cell{policy: Lazarus, rotation: MakeBeforeBreak}) {
			res.plans.add(c, g, learned, outs)
		}
	}
	return res, nil
}

// layouts makes every generation's layout under every policy: the
// lazarus plan from what status would have learned by its publication,
// the others from the lazarus plan's bytes. learned says, per generation,
// whether status had seen captures by then.
func layouts(c *Config, r int, s *site, natural []capture) (gens [numPolicies][]genInput, learned []bool, err error) {
	segs := []segment{{name: backupSegment, length: c.Backup}}
	rnd := stream(c, r, streamRandomPolicy)
	for _, at := range c.generations() {
		capture, err := learnedCapture(s, natural, -c.History, at)
		if err != nil {
			return gens, nil, err
		}
		learned = append(learned, capture != nil)
		laz, err := lazarusLayout(s, segs, c.Target, capture)
		if err != nil {
			return gens, nil, fmt.Errorf("day %g: %w", at, err)
		}
		all, err := allPagesLayout(laz)
		if err != nil {
			return gens, nil, fmt.Errorf("day %g: %w", at, err)
		}
		req, err := requestsLayout(c, s, segs)
		if err != nil {
			return gens, nil, fmt.Errorf("day %g: %w", at, err)
		}
		byPolicy := [numPolicies]*layout{Lazarus: laz, RoundRobin: roundRobinLayout(laz), Random: randomLayout(laz, rnd), AllPages: all, LazarusRequests: req}
		for p, l := range byPolicy {
			first, rest := requestOrder(l)
			gens[p] = append(gens[p], genInput{at: at, l: l, first: first, rest: rest})
		}
	}
	return gens, learned, nil
}
