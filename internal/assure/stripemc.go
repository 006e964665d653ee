package assure

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// StripeProbMC estimates StripeProb by simulation: in each of samples
// trials every carrier is captured with its probability, independently,
// and the trial succeeds when the archived and captured shards hold k
// distinct ones. The random source is PCG seeded with (seed, 0), so equal
// inputs give equal estimates. StdErr is sqrt(P̂(1 − P̂)/samples).
// It is the fallback of StripeProb and the reference the tests hold the
// exact computations to.
func StripeProbMC(k int, archived []int, carriers []Carrier, samples int, seed uint64) (Estimate, error) {
	if samples <= 0 {
		return Estimate{}, fmt.Errorf("%w: %d samples", ErrInvalid, samples)
	}
	if err := checkCarriers(archived, carriers); err != nil {
		return Estimate{}, err
	}
	local := map[int]int{}
	index := func(s int) int {
		j, ok := local[s]
		if !ok {
			j = len(local)
			local[s] = j
		}
		return j
	}
	base := map[int]bool{}
	for _, s := range archived {
		base[index(s)] = true
	}
	shards := make([][]int, len(carriers))
	for i, c := range carriers {
		for _, s := range c.Shards {
			shards[i] = append(shards[i], index(s))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	stamp := make([]int, len(local)) // trial+1 when the shard is available
	hits := 0
	for trial := 1; trial <= samples; trial++ {
		n := len(base)
		for j := range base {
			stamp[j] = trial
		}
		for i, c := range carriers {
			if rng.Float64() >= c.P {
				continue
			}
			for _, j := range shards[i] {
				if stamp[j] != trial {
					stamp[j] = trial
					n++
				}
			}
		}
		if n >= k {
			hits++
		}
	}
	p := float64(hits) / float64(samples)
	return Estimate{P: p, StdErr: math.Sqrt(p * (1 - p) / float64(samples)), Samples: samples}, nil
}
