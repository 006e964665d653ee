package assure

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteStripe enumerates every capture pattern of the carriers.
func bruteStripe(k int, archived []int, carriers []Carrier) float64 {
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
func randomStripe(rng *rand.Rand, carriers int) (int, []int, []Carrier) {
	shards := 2 + rng.IntN(10)
	var archived []int
	for range rng.IntN(3) {
		archived = append(archived, rng.IntN(shards))
	}
	cs := make([]Carrier, carriers)
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

// TestStripeProbBruteForce checks StripeProb, exact with replicas and
// hubs, against enumeration.
func TestStripeProbBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 500 {
		k, archived, cs := randomStripe(rng, 1+rng.IntN(12))
		got, err := StripeProb(k, archived, cs)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Exact || got.StdErr != 0 {
			t.Fatalf("case %d: not exact: %+v", i, got)
		}
		if want := bruteStripe(k, archived, cs); math.Abs(got.P-want) > 1e-12 {
			t.Fatalf("case %d: k=%d archived=%v carriers=%+v: %v, brute force %v", i, k, archived, cs, got.P, want)
		}
	}
}

// TestStripeProbDisjointIsDP: with disjoint shards StripeProb is the DP of
// RecoverProb.
func TestStripeProbDisjointIsDP(t *testing.T) {
	p := []float64{.9, .8, .6, .5}
	cs := []Carrier{{.9, []int{0, 1}}, {.8, []int{2, 3}}, {.6, []int{4, 5}}, {.5, []int{6, 7}}}
	got, err := StripeProb(4, nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	if want := RecoverProb(p, []int{2, 2, 2, 2}, 4); math.Abs(got.P-want) > 1e-15 || round(got.P, 4) != 0.9340 {
		t.Errorf("StripeProb = %v, RecoverProb = %v, BRIEF 0.9340", got.P, want)
	}
}

// TestStripeProbFallback: a group with more than MaxHubs hubs falls back
// to Monte Carlo, which must agree with enumeration within 4 standard
// errors.
func TestStripeProbFallback(t *testing.T) {
	var cs []Carrier
	for i := range MaxHubs + 3 {
		cs = append(cs, Carrier{P: 0.3, Shards: []int{i, i + 1}}) // a chain of hubs
	}
	got, err := StripeProb(8, nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Exact || got.Samples != DefaultSamples {
		t.Fatalf("expected Monte Carlo fallback, got %+v", got)
	}
	if want := bruteStripe(8, nil, cs); math.Abs(got.P-want) > 4*got.StdErr {
		t.Errorf("fallback %v ± %v, brute force %v", got.P, got.StdErr, want)
	}
}

func TestStripeProbMCAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 30 {
		k, archived, cs := randomStripe(rng, 1+rng.IntN(12))
		exact, _ := StripeProb(k, archived, cs)
		mc, err := StripeProbMC(k, archived, cs, 10000, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if se := math.Max(mc.StdErr, 1e-4); math.Abs(mc.P-exact.P) > 4*se {
			t.Errorf("case %d: exact %v, Monte Carlo %v ± %v", i, exact.P, mc.P, mc.StdErr)
		}
	}
}

func TestStripeProbInvalid(t *testing.T) {
	for name, cs := range map[string][]Carrier{
		"p > 1":          {{P: 1.5, Shards: []int{0}}},
		"p NaN":          {{P: math.NaN(), Shards: []int{0}}},
		"negative shard": {{P: 0.5, Shards: []int{-1}}},
	} {
		if _, err := StripeProb(1, nil, cs); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := StripeProb(1, []int{-2}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative archived shard: %v, want ErrInvalid", err)
	}
	if _, err := StripeProbMC(1, nil, nil, 0, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero samples: %v, want ErrInvalid", err)
	}
	if got, _ := StripeProb(2, []int{3, 3, 4}, nil); got.P != 1 || !got.Exact {
		t.Errorf("enough archived shards: %+v, want P = 1", got)
	}
}
