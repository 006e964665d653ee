package erasure

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Bounds on the fuzzed segments that are actually encoded and decoded: the
// padded size, and the shards per stripe (a codec for k = 255 takes 100 ms
// to build; the round-trip grid covers the wide shapes).
const (
	fuzzMaxBytes  = 1 << 16
	fuzzMaxShards = 48
)

// FuzzParams checks that Validate never panics on arbitrary values, that
// valid parameters have a consistent stripe count, and that small valid
// segments survive up to M random erasures per stripe.
func FuzzParams(f *testing.F) {
	f.Add(4, 2, 16, int64(123), uint64(1))
	f.Add(1, 0, 1, int64(0), uint64(2))
	f.Add(200, 56, 3, int64(593), uint64(3))
	f.Add(0, 1, 1, int64(1), uint64(4))
	f.Add(255, 2, 1, int64(-1), uint64(5))
	f.Add(256, 0, MaxShardSize, int64(math.MaxInt64), uint64(6))
	f.Fuzz(func(t *testing.T, k, m, s int, length int64, seed uint64) {
		p := Params{K: k, M: m, ShardSize: s, Length: length}
		if err := p.Validate(); err != nil {
			if !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("Validate(%v) = %v, does not wrap ErrInvalidParams", p, err)
			}
			return
		}
		checkStripeCount(t, p)
		if p.Shards() > fuzzMaxShards || int64(p.Stripes())*int64(p.Shards())*int64(p.ShardSize) > fuzzMaxBytes {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		data := randomBytes(seed, int(p.Length))
		stripes := encodeAll(t, p, data)
		for i := range stripes {
			for _, j := range rng.Perm(p.Shards())[:rng.IntN(p.M+1)] {
				stripes[i][j] = nil
			}
		}
		got, err := decodeAll(p, stripes)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%v: round trip failed: %v", p, err)
		}
	})
}

// checkStripeCount checks that the stripes cover the length with less than
// one stripe to spare, and that the padded length fits an int64.
func checkStripeCount(t *testing.T, p Params) {
	t.Helper()
	n, size := int64(p.Stripes()), p.StripeSize()
	if n < 1 || n > MaxStripes || n > math.MaxInt64/size {
		t.Fatalf("%v: %d stripes of %d bytes", p, n, size)
	}
	if n*size < p.Length || n > 1 && (n-1)*size >= p.Length {
		t.Fatalf("%v: %d stripes of %d bytes do not fit the length", p, n, size)
	}
}

// FuzzPlan checks that Plan never panics and that every plan it returns is
// valid, within the shard budget, and holds at least ⌈length/maxShard⌉ data
// shards in at most ⌈D/kmax⌉ stripes.
func FuzzPlan(f *testing.F) {
	f.Add(int64(1<<20), 50<<10, 0.5)
	f.Add(int64(0), 1, 0.0)
	f.Add(int64(math.MaxInt64), MaxShardSize, 255.0)
	f.Add(int64(1000), 3, 0.3333)
	f.Fuzz(func(t *testing.T, length int64, maxShard int, redundancy float64) {
		p, err := Plan(length, maxShard, redundancy)
		if err != nil {
			if !errors.Is(err, ErrInvalidPlan) && !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("Plan(%d, %d, %v) = %v, wraps no sentinel", length, maxShard, redundancy, err)
			}
			return
		}
		checkPlanned(t, length, maxShard, redundancy, p)
	})
}
