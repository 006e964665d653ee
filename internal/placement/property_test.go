package placement

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPlaceRandomSites plans hundreds of random sites and segments. Every
// plan must satisfy the invariants (capacities, distinct pages per stripe,
// manifest placement, every block placed, fixed parameters kept); every
// failure must be a budget error or too few pages, and a suggested block
// budget must make the same inputs fit.
func TestPlaceRandomSites(t *testing.T) {
	n := 600
	if raceEnabled {
		n = 100
	}
	r := rand.New(rand.NewPCG(2026, 4))
	var plans, suggested int
	for i := range n {
		segs, cs, opts := randomInputs(r)
		pl, err := Place(segs, cs, opts)
		if err == nil {
			plans++
			if err := checkPlan(segs, cs, opts, pl); err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			continue
		}
		var be *BudgetError
		switch {
		case errors.Is(err, ErrTooFewPages):
		case !errors.As(err, &be):
			t.Fatalf("case %d: unexpected error %v", i, err)
		case be.SuggestedMaxBlockBytes > 0:
			suggested++
			opts.MaxBlockBytes = be.SuggestedMaxBlockBytes
			pl, err := Place(segs, cs, opts)
			if err != nil {
				t.Fatalf("case %d: suggested budget %d does not fit: %v", i, be.SuggestedMaxBlockBytes, err)
			}
			if err := checkPlan(segs, cs, opts, pl); err != nil {
				t.Fatalf("case %d with the suggested budget: %v", i, err)
			}
		}
	}
	// The generator must exercise both outcomes.
	if plans < n/4 || suggested < n/50 {
		t.Errorf("%d plans and %d suggestions of %d cases: the generator is off balance", plans, suggested, n)
	}
}
