package erasure

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidPlan is wrapped by the error returned when Plan's inputs are
// unusable.
var ErrInvalidPlan = errors.New("invalid erasure plan")

// Plan chooses parameters for a segment of length bytes whose shards may be
// at most maxShard bytes each, with redundancy parity shards per data shard.
//
// It extends the rule r = ⌈s/z⌉ of McCown's dissertation (segment size s,
// block budget z) to stripes of at most MaxShards shards:
//
//	D     = max(1, ⌈length/maxShard⌉)    data shards needed in total
//	kmax  = largest k ≤ 256 with k + ⌈k·redundancy⌉ ≤ 256
//	T     = ⌈D/kmax⌉                     stripes
//	K     = ⌈D/T⌉                        data shards per stripe (balanced)
//	S     = max(1, ⌈length/(T·K)⌉)       shard size, ≤ maxShard
//	M     = ⌈K·redundancy⌉               parity shards per stripe
//
// ⌈k·redundancy⌉ is computed in float64, a product within a relative 1e-9
// of an integer counting as that integer (50·1.1 gives 55). The result's Stripes() is always
// T: (T−1)·K < D because ⌈D/K⌉ = T, so (T−1)·K·S ≤ (D−1)·maxShard < length.
// The T·K data shards number at least D and fewer than D+T.
//
// Plan rejects a negative, NaN or infinite redundancy, a redundancy above
// 255 (no k fits), maxShard outside [1, MaxShardSize], a negative length,
// and plans needing more than MaxStripes stripes (fewer on 32-bit
// platforms).
func Plan(length int64, maxShard int, redundancy float64) (Params, error) {
	return PlanWidth(length, maxShard, redundancy, MaxShards)
}

// PlanWidth is Plan with stripes of at most width shards instead of
// MaxShards: a stripe's blocks go to distinct pages, so a site with fewer
// pages than 256 needs narrower stripes. It fails when not even k = 1 with
// its parity fits in width.
func PlanWidth(length int64, maxShard int, redundancy float64, width int) (Params, error) {
	if err := checkPlan(length, maxShard, redundancy); err != nil {
		return Params{}, err
	}
	width = min(width, MaxShards)
	if 1+Parity(1, redundancy) > width {
		return Params{}, fmt.Errorf("%w: redundancy %v needs stripes of at least %d shards, more than %d",
			ErrInvalidPlan, redundancy, 1+Parity(1, redundancy), width)
	}
	kmax := maxK(redundancy, width)
	d := ceilDiv(length, int64(maxShard))
	t := ceilDiv(d, int64(kmax))
	if t > stripeLimit() {
		return Params{}, fmt.Errorf("%w: %d bytes in shards of at most %d bytes need %d stripes, over the limit of %d",
			ErrInvalidPlan, length, maxShard, t, stripeLimit())
	}
	k := ceilDiv(d, t)
	s := ceilDiv(length, t*k)
	m := Parity(int(k), redundancy)
	return NewParams(length, int(k), m, int(s))
}

// checkPlan validates Plan's inputs.
func checkPlan(length int64, maxShard int, redundancy float64) error {
	switch {
	case length < 0:
		return fmt.Errorf("%w: length %d is negative", ErrInvalidPlan, length)
	case maxShard < 1:
		return fmt.Errorf("%w: maximum shard size %d is less than 1 byte", ErrInvalidPlan, maxShard)
	case maxShard > MaxShardSize:
		return fmt.Errorf("%w: maximum shard size %d exceeds the limit of %d bytes", ErrInvalidPlan, maxShard, MaxShardSize)
	case math.IsNaN(redundancy) || math.IsInf(redundancy, 0) || redundancy < 0:
		return fmt.Errorf("%w: redundancy %v is not a finite number ≥ 0", ErrInvalidPlan, redundancy)
	case 1+Parity(1, redundancy) > MaxShards:
		return fmt.Errorf("%w: redundancy %v leaves no room for a data shard in %d shards per stripe",
			ErrInvalidPlan, redundancy, MaxShards)
	}
	return nil
}

// maxK returns the largest k with k + ⌈k·redundancy⌉ ≤ width. The caller
// has checked that k = 1 fits.
func maxK(redundancy float64, width int) int {
	k := width
	for k > 1 && k+Parity(k, redundancy) > width {
		k--
	}
	return k
}

// Parity returns ⌈k·redundancy⌉ for a finite redundancy ≥ 0, saturating at
// twice MaxShards instead of overflowing. A product within a
// relative 1e-9 of an integer counts as that integer, so that decimal
// redundancies behave as written: 50·1.1 is 55.00000000000001 in float64,
// and gives 55, not 56.
func Parity(k int, redundancy float64) int {
	x := float64(k) * redundancy
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*max(1, r) {
		x = r
	}
	return int(min(math.Ceil(x), 2*MaxShards))
}

// ceilDiv returns max(1, ⌈a/b⌉) for a ≥ 0 and b > 0 without overflow.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return max(1, q)
}
