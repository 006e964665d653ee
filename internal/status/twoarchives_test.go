package status

import (
	"math"
	"testing"
)

// TestAtLeastTwo: the chance that two or more independent events happen,
// against the sum over subsets.
func TestAtLeastTwo(t *testing.T) {
	for _, tc := range []struct {
		ps   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{1}, 0},
		{[]float64{0.5, 0.5}, 0.25},
		{[]float64{1, 1}, 1},
		{[]float64{0.9, 0.8, 0.1}, 0.9*0.8 + 0.9*0.1 + 0.8*0.1 - 2*0.9*0.8*0.1},
		{[]float64{0.3, 0, 0.6, 0.2}, 0.3*0.6*0.8 + 0.3*0.2*0.4 + 0.6*0.2*0.7 + 0.3*0.6*0.2},
	} {
		if got := atLeastTwo(tc.ps); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: %v, want %v", tc.ps, got, tc.want)
		}
	}
}
