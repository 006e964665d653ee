package assure

import (
	"math"
	"math/rand/v2"
	"testing"
)

// carrier is one page as one stripe sees it in these tests.
type carrier struct {
	P      float64 // probability that the page is captured in time
	Shards []int   // shard indices of this stripe the page carries
}

// stripeExact is stripe P_rec by the plan Assess uses: ok is false when
// the plan is not exact (a group with more than MaxHubs hubs).
func stripeExact(k int, archived []int, carriers []carrier) (p float64, ok bool) {
	lists := make([][]int, len(carriers))
	ps := make([]float64, len(carriers))
	for i, c := range carriers {
		lists[i], ps[i] = c.Shards, c.P
	}
	plan := newStripePlan(k, archived, lists)
	if !plan.exact {
		return 0, false
	}
	return plan.eval(ps), true
}

// stripeMC estimates stripe P_rec by simulation, the reference the exact
// computations are held to: in each of samples trials every carrier is
// captured with its probability, independently, and the trial succeeds
// when the archived and captured shards hold k distinct ones. It returns
// the estimate and its standard error sqrt(P̂(1 − P̂)/samples).
func stripeMC(k int, archived []int, carriers []carrier, samples int, seed uint64) (p, stdErr float64) {
	rng := rand.New(rand.NewPCG(seed, 0))
	hits := 0
	for range samples {
		have := map[int]bool{}
		for _, s := range archived {
			have[s] = true
		}
		for _, c := range carriers {
			if rng.Float64() < c.P {
				for _, s := range c.Shards {
					have[s] = true
				}
			}
		}
		if len(have) >= k {
			hits++
		}
	}
	p = float64(hits) / float64(samples)
	return p, math.Sqrt(p * (1 - p) / float64(samples))
}

// bruteStripe enumerates every capture pattern of the carriers.
func bruteStripe(k int, archived []int, carriers []carrier) float64 {
	var total float64
	for mask := range 1 << len(carriers) {
		w := 1.0
		have := map[int]bool{}
		for _, s := range archived {
			have[s] = true
		}
		for i, c := range carriers {
			if mask&(1<<i) != 0 {
				w *= c.P
				for _, s := range c.Shards {
					have[s] = true
				}
			} else {
				w *= 1 - c.P
			}
		}
		if len(have) >= k {
			total += w
		}
	}
	return total
}

// randomStripe makes a stripe of up to 12 carriers whose shards repeat
// across carriers (replicas) and within one (ignored), with hubs.
func randomStripe(rng *rand.Rand, carriers int) (int, []int, []carrier) {
	shards := 2 + rng.IntN(10)
	var archived []int
	for range rng.IntN(3) {
		archived = append(archived, rng.IntN(shards))
	}
	cs := make([]carrier, carriers)
	for i := range cs {
		cs[i].P = rng.Float64()
		if rng.IntN(8) == 0 {
			cs[i].P = float64(rng.IntN(2))
		}
		for range rng.IntN(4) {
			cs[i].Shards = append(cs[i].Shards, rng.IntN(shards))
		}
	}
	return 1 + rng.IntN(shards), archived, cs
}

// TestStripePlanBruteForce checks the stripe plan, exact with replicas
// and hubs, against enumeration.
func TestStripePlanBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 500 {
		k, archived, cs := randomStripe(rng, 1+rng.IntN(12))
		got, ok := stripeExact(k, archived, cs)
		if !ok {
			t.Fatalf("case %d: not exact", i)
		}
		if want := bruteStripe(k, archived, cs); math.Abs(got-want) > 1e-12 {
			t.Fatalf("case %d: k=%d archived=%v carriers=%+v: %v, brute force %v", i, k, archived, cs, got, want)
		}
	}
}

// TestStripePlanDisjointIsDP: with disjoint shards the plan is the DP of
// recoverProb.
func TestStripePlanDisjointIsDP(t *testing.T) {
	p := []float64{.9, .8, .6, .5}
	cs := []carrier{{.9, []int{0, 1}}, {.8, []int{2, 3}}, {.6, []int{4, 5}}, {.5, []int{6, 7}}}
	got, _ := stripeExact(4, nil, cs)
	if want := recoverProb(p, []int{2, 2, 2, 2}, 4); math.Abs(got-want) > 1e-15 || round(got, 4) != 0.9340 {
		t.Errorf("stripe plan = %v, recoverProb = %v, BRIEF 0.9340", got, want)
	}
}

// TestStripePlanTooManyHubs: a group with more than MaxHubs hubs is not
// exact (Assess then simulates it), one with MaxHubs is.
func TestStripePlanTooManyHubs(t *testing.T) {
	chain := func(hubs int) []carrier {
		var cs []carrier
		for i := range hubs {
			cs = append(cs, carrier{P: 0.3, Shards: []int{i, i + 1}}) // a chain of hubs
		}
		return cs
	}
	if _, ok := stripeExact(8, nil, chain(MaxHubs+3)); ok {
		t.Errorf("%d hubs in one group: exact, want left to Monte Carlo", MaxHubs+3)
	}
	cs := chain(MaxHubs)
	got, ok := stripeExact(8, nil, cs)
	if want := bruteStripe(8, nil, cs); !ok || math.Abs(got-want) > 1e-12 {
		t.Errorf("%d hubs: %v (exact %v), brute force %v", MaxHubs, got, ok, want)
	}
}

// TestStripePlanMCAgrees holds the plan to the simulation within 4
// standard errors.
func TestStripePlanMCAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 30 {
		k, archived, cs := randomStripe(rng, 1+rng.IntN(12))
		exact, _ := stripeExact(k, archived, cs)
		mc, se := stripeMC(k, archived, cs, 10000, uint64(i))
		if se = math.Max(se, 1e-4); math.Abs(mc-exact) > 4*se {
			t.Errorf("case %d: exact %v, Monte Carlo %v ± %v", i, exact, mc, se)
		}
	}
}

// TestStripePlanArchivedEnough: archived shards repeat; two distinct are
// enough for k = 2 with no carrier.
func TestStripePlanArchivedEnough(t *testing.T) {
	if got, ok := stripeExact(2, []int{3, 3, 4}, nil); got != 1 || !ok {
		t.Errorf("enough archived shards: %v (exact %v), want 1", got, ok)
	}
	if got, _ := stripeExact(3, []int{3, 3, 4}, nil); got != 0 {
		t.Errorf("one shard short, no carrier: %v, want 0", got)
	}
}
