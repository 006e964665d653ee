package status

import (
	"strings"
	"testing"
)

// TestShortByPlural: a segment one block short says "1 block short",
// and the stripes beyond the five named are counted in words.
func TestShortByPlural(t *testing.T) {
	one := Segment{Name: "app", Stripes: 1, PerStripe: []Stripe{{Index: 0, Need: 4, Combined: 3}}}
	if got := shortBy(one); !strings.Contains(got, `"app" is 1 block short (stripe 0 has 3 of 4)`) {
		t.Errorf("one block: %q", got)
	}
	many := Segment{Name: "app", Stripes: 7}
	for i := 0; i < 7; i++ {
		many.PerStripe = append(many.PerStripe, Stripe{Index: i, Need: 2, Combined: 1})
	}
	if got := shortBy(many); !strings.Contains(got, "is 7 blocks short") || !strings.HasSuffix(got, ", and 2 more stripes)") {
		t.Errorf("seven blocks: %q", got)
	}
	many.PerStripe = many.PerStripe[:6]
	many.Stripes = 6
	if got := shortBy(many); !strings.HasSuffix(got, ", and 1 more stripe)") {
		t.Errorf("six stripes: %q", got)
	}
}
