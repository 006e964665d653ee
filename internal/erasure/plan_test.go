package erasure

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const (
	kiB = 1 << 10
	miB = 1 << 20
	giB = 1 << 30
)

// TestPlanMcCownTable23 reproduces table 23 of McCown's dissertation
// ("Lazy Preservation", 2007): r = ⌈s/z⌉ data blocks for a zipped file of
// size s and block budget z. The table's numbers are reproduced only with
// binary units (KB = 1024 bytes, MB = 2^20, GB = 2^30): with decimal units
// 1 MB / 50 KB would give 20, not 21.
func TestPlanMcCownTable23(t *testing.T) {
	sizes := []int64{1 * kiB, 1 * miB, 100 * miB, 1 * giB}
	budgets := []int{50 * kiB, 100 * kiB, 150 * kiB}
	table := [][]int64{ // rows: sizes, columns: budgets
		{1, 1, 1},
		{21, 11, 7},
		{2048, 1024, 683},
		{20972, 10486, 6991},
	}
	for i, s := range sizes {
		for j, z := range budgets {
			r := table[i][j]
			p, err := Plan(s, z, 0)
			if err != nil {
				t.Fatalf("Plan(%d, %d, 0): %v", s, z, err)
			}
			checkTable23(t, s, z, r, p)
		}
	}
	// Decimal units do not reproduce the table.
	if p, _ := Plan(1_000_000, 50_000, 0); p.K == 21 {
		t.Errorf("decimal units unexpectedly give 21 data blocks")
	}
}

// checkTable23 checks Plan's answer p for size s and budget z against r
// from table 23. One stripe holds all r data shards when r ≤ 256; beyond
// that the T = ⌈r/256⌉ stripes are balanced with K = ⌈r/T⌉, so T·K exceeds
// r by less than T.
func checkTable23(t *testing.T, s int64, z int, r int64, p Params) {
	t.Helper()
	total := int64(p.Stripes()) * int64(p.K)
	wantStripes := (r + MaxShards - 1) / MaxShards
	switch {
	case p.ShardSize > z:
		t.Errorf("Plan(%d, %d, 0) = %v: shard size over the budget", s, z, p)
	case int64(p.Stripes()) != wantStripes:
		t.Errorf("Plan(%d, %d, 0) = %v: %d stripes, want ⌈%d/256⌉ = %d", s, z, p, p.Stripes(), r, wantStripes)
	case total < r || total >= r+wantStripes:
		t.Errorf("Plan(%d, %d, 0) = %v: %d data shards, table 23 says %d", s, z, p, total, r)
	case r <= MaxShards && int64(p.K) != r:
		t.Errorf("Plan(%d, %d, 0) = %v: k = %d, table 23 says %d", s, z, p, p.K, r)
	}
}

// TestPlan pins the planner's exact output, stripes included.
func TestPlan(t *testing.T) {
	tests := []struct {
		length     int64
		maxShard   int
		redundancy float64
		want       Params
		stripes    int64
	}{
		// The single-stripe rows of table 23, with parity added.
		{1 * kiB, 50 * kiB, 0.5, Params{K: 1, M: 1, ShardSize: 1024, Length: kiB}, 1},
		{1 * miB, 50 * kiB, 0.5, Params{K: 21, M: 11, ShardSize: 49933, Length: miB}, 1},
		{1 * miB, 100 * kiB, 1, Params{K: 11, M: 11, ShardSize: 95326, Length: miB}, 1},
		{1 * miB, 150 * kiB, 2, Params{K: 7, M: 14, ShardSize: 149797, Length: miB}, 1},
		// 2,048 data shards: 8 stripes of 256 without parity, 13 balanced
		// stripes of 158 (2,054 shards of 51,051 bytes) with kmax = 170 for
		// redundancy 0.5 (170 + 85 = 255; 171 + 86 = 257).
		{100 * miB, 50 * kiB, 0, Params{K: 256, M: 0, ShardSize: 51200, Length: 100 * miB}, 8},
		{100 * miB, 50 * kiB, 0.5, Params{K: 158, M: 79, ShardSize: 51051, Length: 100 * miB}, 13},
		// Redundancy 1: kmax = 128, 2048/128 = 16 stripes exactly.
		{100 * miB, 50 * kiB, 1, Params{K: 128, M: 128, ShardSize: 51200, Length: 100 * miB}, 16},
		// 20,972 data shards, kmax = 128: 164 stripes of 128 (20,992 shards).
		{1 * giB, 50 * kiB, 1, Params{K: 128, M: 128, ShardSize: 51151, Length: giB}, 164},
		// An empty segment gets one stripe of one one-byte shard.
		{0, 50 * kiB, 0.5, Params{K: 1, M: 1, ShardSize: 1, Length: 0}, 1},
		// Fractional parity rounds up: ⌈10·0.01⌉ = 1.
		{10, 1, 0.01, Params{K: 10, M: 1, ShardSize: 1, Length: 10}, 1},
		// Decimal redundancy behaves as written: 50·1.1 = 55 (float64 says
		// 55.00000000000001) and 30·0.1 = 3.
		{50, 1, 1.1, Params{K: 50, M: 55, ShardSize: 1, Length: 50}, 1},
		{30, 1, 0.1, Params{K: 30, M: 3, ShardSize: 1, Length: 30}, 1},
		// Redundancy 255 leaves room for exactly one data shard per stripe.
		{3, 1, 255, Params{K: 1, M: 255, ShardSize: 1, Length: 3}, 3},
		// Stripes of one byte per shard at the limit of 2^32−1 stripes.
		{MaxStripes * 256, 1, 0, Params{K: 256, M: 0, ShardSize: 1, Length: MaxStripes * 256}, MaxStripes},
	}
	for _, tt := range tests {
		if tt.stripes > math.MaxInt {
			continue // Validate rejects this on 32-bit platforms
		}
		got, err := Plan(tt.length, tt.maxShard, tt.redundancy)
		if err != nil {
			t.Errorf("Plan(%d, %d, %v): %v", tt.length, tt.maxShard, tt.redundancy, err)
			continue
		}
		if got != tt.want || int64(got.Stripes()) != tt.stripes {
			t.Errorf("Plan(%d, %d, %v) = %+v with %d stripes, want %+v with %d",
				tt.length, tt.maxShard, tt.redundancy, got, got.Stripes(), tt.want, tt.stripes)
		}
	}
}

func TestPlanRejects(t *testing.T) {
	tests := []struct {
		name       string
		length     int64
		maxShard   int
		redundancy float64
		want       string
	}{
		{"negative length", -1, 100, 0.5, "length -1 is negative"},
		{"zero budget", 100, 0, 0.5, "maximum shard size 0 is less than 1 byte"},
		{"negative budget", 100, -3, 0.5, "maximum shard size -3 is less than 1 byte"},
		{"budget over limit", 100, MaxShardSize + 1, 0.5, "exceeds the limit of 16777216 bytes"},
		{"NaN redundancy", 100, 100, math.NaN(), "redundancy NaN is not a finite number ≥ 0"},
		{"negative redundancy", 100, 100, -0.5, "redundancy -0.5 is not a finite number ≥ 0"},
		{"infinite redundancy", 100, 100, math.Inf(1), "redundancy +Inf is not a finite number ≥ 0"},
		{"redundancy too high", 100, 100, 255.5, "leaves no room for a data shard"},
		{"huge redundancy", 100, 100, 1e300, "leaves no room for a data shard"},
		{"too many stripes", math.MaxInt64, 1, 0, "stripes, over the limit of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Plan(tt.length, tt.maxShard, tt.redundancy)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Plan = %v, %v; want error containing %q", p, err, tt.want)
			}
			if !errors.Is(err, ErrInvalidPlan) {
				t.Errorf("error %v does not wrap ErrInvalidPlan", err)
			}
		})
	}
}

func TestMaxK(t *testing.T) {
	tests := []struct {
		redundancy float64
		want       int
	}{
		{0, 256},
		{0.001, 255}, // 255 + 1 = 256
		{0.5, 170},   // 170 + 85 = 255, 171 + 86 = 257
		{1, 128},
		{2, 85}, // 85 + 170 = 255
		{255, 1},
	}
	for _, tt := range tests {
		if got := maxK(tt.redundancy, MaxShards); got != tt.want {
			t.Errorf("maxK(%v) = %d, want %d", tt.redundancy, got, tt.want)
		}
	}
}

// checkPlanned checks the invariants every successful Plan must meet.
func checkPlanned(t *testing.T, length int64, maxShard int, redundancy float64, p Params) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("Plan(%d, %d, %v) = %v, invalid: %v", length, maxShard, redundancy, p, err)
	}
	d := ceilDiv(length, int64(maxShard))
	switch {
	case p.Length != length:
		t.Fatalf("Plan(%d, …) = %v: wrong length", length, p)
	case p.ShardSize > maxShard:
		t.Fatalf("Plan(%d, %d, %v) = %v: shard size over the budget", length, maxShard, redundancy, p)
	case int64(p.Stripes())*int64(p.K) < d:
		t.Fatalf("Plan(%d, %d, %v) = %v: fewer than %d data shards", length, maxShard, redundancy, p, d)
	case p.M != Parity(p.K, redundancy):
		t.Fatalf("Plan(%d, %d, %v) = %v: m is not ⌈k·redundancy⌉", length, maxShard, redundancy, p)
	case int64(p.Stripes()) != ceilDiv(d, int64(maxK(redundancy, MaxShards))):
		t.Fatalf("Plan(%d, %d, %v) = %v: %d stripes, not ⌈D/kmax⌉", length, maxShard, redundancy, p, p.Stripes())
	case int64(p.Stripes())*int64(p.K) >= d+int64(p.Stripes()):
		t.Fatalf("Plan(%d, %d, %v) = %v: D+T or more data shards", length, maxShard, redundancy, p)
	}
}

func TestPlanInvariants(t *testing.T) {
	lengths := []int64{0, 1, 2, 255, 256, 257, 1000, 65535, 65536, 65537, 1 << 24, 1<<24 + 1, 1 << 40}
	budgets := []int{1, 2, 3, 100, 4096, 50 * kiB, MaxShardSize}
	redundancies := []float64{0, 0.1, 0.3, 0.5, 1, 1.5, 3, 100, 255}
	for _, l := range lengths {
		for _, z := range budgets {
			for _, r := range redundancies {
				p, err := Plan(l, z, r)
				if err != nil {
					if errors.Is(err, ErrInvalidPlan) && ceilDiv(l, int64(z))/int64(maxK(r, MaxShards)) >= stripeLimit() {
						continue // legitimately too many stripes
					}
					t.Fatalf("Plan(%d, %d, %v): %v", l, z, r, err)
				}
				checkPlanned(t, l, z, r, p)
			}
		}
	}
}
