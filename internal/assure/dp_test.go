package assure

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
		if got := RecoverProb(tc.p, tc.c, tc.r); round(got, tc.decimals) != tc.want {
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
		got, want := RecoverProb(p, c, r), bruteRecover(p, c, r)
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
		var carriers []Carrier
		shard, total := 0, 0
		for u := range n {
			p[u], c[u] = rng.Float64(), 1+rng.IntN(3)
			total += c[u]
			var shards []int
			for range c[u] {
				shards = append(shards, shard)
				shard++
			}
			carriers = append(carriers, Carrier{P: p[u], Shards: shards})
		}
		r := 1 + rng.IntN(total)
		exact := RecoverProb(p, c, r)
		mc, err := StripeProbMC(r, nil, carriers, 20000, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		se := math.Max(mc.StdErr, 1/20000.0)
		if math.Abs(mc.P-exact) > 4*se {
			t.Errorf("case %d: DP %v, Monte Carlo %v ± %v", i, exact, mc.P, mc.StdErr)
		}
	}
}

func TestRecoverProbEdges(t *testing.T) {
	if got := RecoverProb(nil, nil, 0); got != 1 {
		t.Errorf("r = 0: %v, want 1", got)
	}
	if got := RecoverProb([]float64{1, 1}, []int{1, 1}, 3); got != 0 {
		t.Errorf("too few blocks: %v, want 0", got)
	}
	if got := RecoverProb([]float64{1}, []int{5}, 3); got != 1 {
		t.Errorf("one certain page with enough blocks: %v, want 1", got)
	}
}
