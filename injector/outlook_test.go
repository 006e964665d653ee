package injector_test

import (
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

// TestOutlookSaysWhatIsKnownThenThePrior: a generation's report says how
// many carrier pages it survives losing and on how many its manifest is
// (certain), then the capture model's prior forecast within 1, 7 and 30
// days: non-decreasing, below one, the same on a second run of the same
// plan.
func TestOutlookSaysWhatIsKnownThenThePrior(t *testing.T) {
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 11)
	sitetest.ServerSide(t, s.Dir, 20000)
	o := s.DefaultOptions("https://example.org/")
	o.Includes = s.Include("app", "etc")
	o.Now = func() time.Time { return sitetest.InjectedAt }
	res := sitetest.Inject(t, o)
	out := res.Outlook
	if out == nil || out.Carriers == 0 || out.Survives < 1 || out.Survives >= out.Carriers || out.ManifestPages < 1 {
		t.Fatalf("outlook %+v", out)
	}
	if len(out.Within) != 3 || out.Within[0].Days != 1 || out.Within[2].Days != 30 {
		t.Fatalf("horizons %+v", out.Within)
	}
	for i, c := range out.Within {
		if c.Probability < 0 || c.Probability >= 1 || (i > 0 && c.Probability < out.Within[i-1].Probability) {
			t.Fatalf("forecasts %+v: want non-decreasing, below one", out.Within)
		}
	}
	again := sitetest.Inject(t, o).Outlook
	for i := range out.Within {
		if again.Within[i] != out.Within[i] {
			t.Fatalf("forecasts %+v then %+v", out.Within, again.Within)
		}
	}
}
