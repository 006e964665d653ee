package assure

import (
	"math"
	"math/rand/v2"
	"testing"
)

// recoverProb returns the probability that pages captured independently,
// page u with probability p[u] and carrying c[u] distinct blocks of a
// stripe (no block on two pages), together yield at least r blocks. It is
// the Poisson-binomial DP of BRIEF §5 over the count S of blocks, capped at
// r: for each page, S ← min(r, S + c_u) with probability p_u. Cost
// O(len(p)·r) time, O(r) space. Blocks already archived are handled by the
// caller lowering r; r ≤ 0 gives 1. It is the DP stripePlan.eval runs
// for disjoint shards, kept here to hold addPage to the BRIEF's vectors.
func recoverProb(p []float64, c []int, r int) float64 {
	if r <= 0 {
		return 1
	}
	dist := make([]float64, r+1)
	dist[0] = 1
	for u, pu := range p {
		addPage(dist, pu, c[u])
	}
	return clamp01(dist[r])
}

// TestBriefDPVectors reproduces BRIEF §5's DP vectors to the printed
// precision.
func TestBriefDPVectors(t *testing.T) {
	ones := func(n int) []int {
		c := make([]int, n)
		for i := range c {
			c[i] = 1
		}
		return c
	}
	same := func(n int, p float64) []float64 {
		ps := make([]float64, n)
		for i := range ps {
			ps[i] = p
		}
		return ps
	}
	for _, tc := range []struct {
		name     string
		p        []float64
		c        []int
		r        int
		want     float64
		decimals int
	}{
		{"8 pages, one block each", []float64{.9, .8, .6, .5, .3, .3, .2, .1}, ones(8), 4, 0.5624, 4},
		{"4 pages, two blocks each", []float64{.9, .8, .6, .5}, []int{2, 2, 2, 2}, 4, 0.9340, 4},
		{"n=20 r=10 p=.646", same(20, .646), ones(20), 10, 0.9425, 4},
	} {
		if got := recoverProb(tc.p, tc.c, tc.r); round(got, tc.decimals) != tc.want {
			t.Errorf("%s: P_rec = %.6f, want %v", tc.name, got, tc.want)
		}
	}
}

// bruteRecover enumerates every capture pattern.
func bruteRecover(p []float64, c []int, r int) float64 {
	var total float64
	for mask := range 1 << len(p) {
		w, n := 1.0, 0
		for u := range p {
			if mask&(1<<u) != 0 {
				w *= p[u]
				n += c[u]
			} else {
				w *= 1 - p[u]
			}
		}
		if n >= r {
			total += w
		}
	}
	return total
}

// TestRecoverProbBruteForce checks the DP against enumeration on random
// small cases, including pages with no block, p = 0 and p = 1.
func TestRecoverProbBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := 1 + rng.IntN(10)
		p, c := make([]float64, n), make([]int, n)
		total := 0
		for u := range n {
			switch rng.IntN(6) {
			case 0:
				p[u] = 0
			case 1:
				p[u] = 1
			default:
				p[u] = rng.Float64()
			}
			c[u] = rng.IntN(4)
			total += c[u]
		}
		r := rng.IntN(total + 2)
		got, want := recoverProb(p, c, r), bruteRecover(p, c, r)
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("case %d: p=%v c=%v r=%d: DP %v, brute force %v", i, p, c, r, got, want)
		}
	}
}

// TestRecoverProbMonteCarlo holds the DP to StripeProbMC (pages with
// disjoint shards) within 4 standard errors.
func TestRecoverProbMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		n := 5 + rng.IntN(30)
		p, c := make([]float64, n), make([]int, n)
		var carriers []carrier
		shard, total := 0, 0
		for u := range n {
			p[u], c[u] = rng.Float64(), 1+rng.IntN(3)
			total += c[u]
			var shards []int
			for range c[u] {
				shards = append(shards, shard)
				shard++
			}
			carriers = append(carriers, carrier{P: p[u], Shards: shards})
		}
		r := 1 + rng.IntN(total)
		exact := recoverProb(p, c, r)
		mc, se := stripeMC(r, nil, carriers, 20000, uint64(i))
		if se = math.Max(se, 1/20000.0); math.Abs(mc-exact) > 4*se {
			t.Errorf("case %d: DP %v, Monte Carlo %v ± %v", i, exact, mc, se)
		}
	}
}

func TestRecoverProbEdges(t *testing.T) {
	if got := recoverProb(nil, nil, 0); got != 1 {
		t.Errorf("r = 0: %v, want 1", got)
	}
	if got := recoverProb([]float64{1, 1}, []int{1, 1}, 3); got != 0 {
		t.Errorf("too few blocks: %v, want 0", got)
	}
	if got := recoverProb([]float64{1}, []int{5}, 3); got != 1 {
		t.Errorf("one certain page with enough blocks: %v, want 1", got)
	}
}
