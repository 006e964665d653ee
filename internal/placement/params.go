package placement

import (
	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// planWidth is erasure.PlanWidth: McCown's r = ⌈s/z⌉ with stripes of at
// most width shards, since a stripe's k+m blocks go to distinct pages. It
// reports false when no k fits the width or the plan needs more stripes
// than the format allows. The caller has validated z and ρ.
func planWidth(length int64, z int, rho float64, width int) (erasure.Params, bool) {
	p, err := erasure.PlanWidth(length, z, rho, width)
	return p, err == nil
}

// minWidth returns the fewest distinct pages one stripe needs: 1 + ⌈ρ⌉.
func minWidth(rho float64) int {
	return 1 + erasure.Parity(1, rho)
}

// ceilDiv returns max(1, ⌈a/b⌉) for a ≥ 0 and b > 0 without overflow.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return max(1, q)
}
