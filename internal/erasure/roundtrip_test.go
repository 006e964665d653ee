package erasure

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// erasure is a damage pattern: the shard indexes of one stripe to lose.
type erasure struct {
	name    string
	lose    func(k, m int, rng *rand.Rand) []int
	tooFew  bool // the stripe must then fail with ErrTooFewShards
	onlyIfM bool // skip when m = 0 (the pattern would equal "none")
}

func span(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

var erasures = []erasure{
	// Nothing lost: the data shards are used as they are.
	{name: "none", lose: func(k, m int, _ *rand.Rand) []int { return nil }},
	// All parity lost: the data shards are all there.
	{name: "all parity lost", lose: func(k, m int, _ *rand.Rand) []int { return span(k, m) }, onlyIfM: true},
	// The first m shards lost (data first): rebuilt from the rest.
	{name: "first m lost", lose: func(k, m int, _ *rand.Rand) []int { return span(0, m) }, onlyIfM: true},
	// The last m data shards lost (and parity if m > k): rebuilt.
	{name: "last m data lost", lose: func(k, m int, _ *rand.Rand) []int { return span(max(0, k-m), m) }, onlyIfM: true},
	// m random shards lost: rebuilt.
	{name: "random m lost", lose: func(k, m int, rng *rand.Rand) []int { return rng.Perm(k + m)[:m] }, onlyIfM: true},
	// m+1 random shards lost: one too many, ErrTooFewShards.
	{name: "m+1 lost", lose: func(k, m int, rng *rand.Rand) []int { return rng.Perm(k + m)[:m+1] }, tooFew: true},
}

// gridLengths returns the segment lengths of the round-trip grid for p:
// boundaries around 0, one shard, 64 KiB and one stripe, and a few MiB.
// Under the race detector wide stripes keep only a few lengths.
func gridLengths(p Params) []int64 {
	s, stripe := int64(p.ShardSize), p.StripeSize()
	if raceEnabled && p.Shards() > 32 {
		return []int64{0, s + 1, stripe + 1}
	}
	lengths := []int64{0, 1, s - 1, s, s + 1, 64*kiB - 1, 64 * kiB, 64*kiB + 1, stripe - 1, stripe, stripe + 1, 2*stripe + 1}
	if !raceEnabled && !testing.Short() {
		lengths = append(lengths, 3*miB+17)
	}
	return lengths
}

// gridShardSizes are the shard sizes of the round-trip grid: a power of
// two and an odd size.
func gridShardSizes() []int {
	if raceEnabled {
		return []int{4096}
	}
	return []int{4096, 1000}
}

func TestRoundTripGrid(t *testing.T) {
	shapes := [][2]int{{1, 0}, {1, 1}, {1, 3}, {4, 2}, {10, 10}, {17, 3}, {128, 128}, {200, 56}, {255, 1}}
	for _, km := range shapes {
		for _, shard := range gridShardSizes() {
			base := Params{K: km[0], M: km[1], ShardSize: shard}
			for _, l := range gridLengths(base) {
				p := base
				p.Length = l
				t.Run(fmt.Sprintf("k%d_m%d_s%d_len%d", p.K, p.M, shard, l), func(t *testing.T) {
					roundTripPatterns(t, p)
				})
			}
		}
	}
}

// roundTripPatterns encodes a random segment with p and decodes it under
// every erasure pattern, applied to every stripe.
func roundTripPatterns(t *testing.T, p Params) {
	data := randomBytes(uint64(p.Length)^uint64(p.K<<20|p.M<<10), int(p.Length))
	encoded := encodeAll(t, p, data)
	rng := rand.New(rand.NewPCG(uint64(p.K), uint64(p.M)))
	for _, e := range erasures {
		if e.onlyIfM && p.M == 0 {
			continue
		}
		stripes := make([][][]byte, len(encoded))
		for i := range encoded {
			stripes[i] = cloneStripe(encoded[i])
			for _, j := range e.lose(p.K, p.M, rng) {
				stripes[i][j] = nil
			}
		}
		got, err := decodeAll(p, stripes)
		switch {
		case e.tooFew && !errors.Is(err, ErrTooFewShards):
			t.Errorf("%s: got %v, want ErrTooFewShards", e.name, err)
		case e.tooFew:
			want := fmt.Sprintf("stripe 0: too few shards: have %d of the %d shards needed", p.K-1, p.K)
			if err.Error() != want {
				t.Errorf("%s: error %q, want %q", e.name, err, want)
			}
		case err != nil:
			t.Errorf("%s: %v", e.name, err)
		case !bytes.Equal(got, data):
			t.Errorf("%s: rebuilt segment differs", e.name)
		}
	}
}

// TestRandomized tries many small random parameter sets and erasures: the
// segment comes back whenever every stripe keeps at least K shards, and
// decoding fails with ErrTooFewShards otherwise.
func TestRandomized(t *testing.T) {
	seeds := 1000
	if raceEnabled {
		seeds = 200
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 99))
		k := 1 + rng.IntN(20)
		if rng.IntN(10) == 0 && !raceEnabled { // wide codecs are slow to build under -race
			k = 1 + rng.IntN(MaxShards-1)
		}
		m := rng.IntN(min(20, MaxShards-k) + 1)
		p := Params{K: k, M: m, ShardSize: 1 + rng.IntN(64)}
		p.Length = rng.Int64N(3*p.StripeSize() + 1)
		if err := randomTrial(t, p, rng); err != nil {
			t.Fatalf("seed %d, %v: %v", seed, p, err)
		}
	}
}

// randomTrial encodes, loses up to m+2 random shards per stripe, decodes
// and checks the outcome.
func randomTrial(t *testing.T, p Params, rng *rand.Rand) error {
	data := randomBytes(rng.Uint64(), int(p.Length))
	stripes := encodeAll(t, p, data)
	recoverable := true
	for i := range stripes {
		lost := rng.IntN(min(p.M+2, p.Shards()) + 1)
		for _, j := range rng.Perm(p.Shards())[:lost] {
			stripes[i][j] = nil
		}
		recoverable = recoverable && lost <= p.M
	}
	got, err := decodeAll(p, stripes)
	switch {
	case !recoverable && !errors.Is(err, ErrTooFewShards):
		return fmt.Errorf("got %v, want ErrTooFewShards", err)
	case recoverable && err != nil:
		return err
	case recoverable && !bytes.Equal(got, data):
		return errors.New("rebuilt segment differs")
	}
	return nil
}

func TestTooFewShardsMessage(t *testing.T) {
	p := Params{K: 10, M: 4, ShardSize: 8, Length: 80}
	stripe := encodeAll(t, p, randomBytes(1, 80))[0]
	for _, j := range []int{0, 3, 5, 11, 12} {
		stripe[j] = nil
	}
	err := Reconstruct(p, stripe)
	if !errors.Is(err, ErrTooFewShards) || !strings.Contains(err.Error(), "have 9 of the 10 shards needed") {
		t.Errorf("Reconstruct = %v, want ErrTooFewShards saying have 9 of the 10", err)
	}
}
