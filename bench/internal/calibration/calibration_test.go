package calibration

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestTallyBinsBrierAndFlags(t *testing.T) {
	var fs []Forecast
	// Ten forecasts of 0.85, three came true: above by 0.55, beyond
	// chance. Four of 0.05, none came: too few to judge.
	for i := range 10 {
		fs = append(fs, Forecast{P: 0.85, Came: i < 3})
	}
	for range 4 {
		fs = append(fs, Forecast{P: 0.05})
	}
	tb := Tally(30, fs)
	if tb.Worlds != 14 || len(tb.Bins) != 2 {
		t.Fatalf("table %+v: want 14 forecasts in 2 bins", tb)
	}
	low, high := tb.Bins[0], tb.Bins[1]
	if low.From != 0 || low.To != 0.1 || low.Worlds != 4 || low.Realised != 0 || low.Above() {
		t.Errorf("low bin %+v", low)
	}
	if high.From != 0.8 || high.To != 0.9 || high.Worlds != 10 || math.Abs(high.Realised-0.3) > 1e-12 || !high.Above() || !high.OverConfident() {
		t.Errorf("high bin %+v: want 10 forecasts, 0.3 realised, above and over-confident", high)
	}
	if se := high.StdErr(); math.Abs(se-math.Sqrt(0.85*0.15/10)) > 1e-12 {
		t.Errorf("standard error %v", se)
	}
	brier := (3*0.15*0.15 + 7*0.85*0.85 + 4*0.05*0.05) / 14
	if math.Abs(tb.Brier-brier) > 1e-12 || tb.Above != 1 || tb.OverConfident != 1 || math.Abs(tb.Realised-3.0/14) > 1e-12 {
		t.Errorf("table %+v: want Brier %v, one bin above and over-confident", tb, brier)
	}
	var out bytes.Buffer
	WriteVerdict(&out, []Named{{"kind within 30 days", tb}, {"calibrated", Tally(7, []Forecast{{P: 1, Came: true}})}})
	if s := out.String(); !strings.Contains(s, "above what came true: kind within 30 days\n") || !strings.Contains(s, "more than chance explains): kind within 30 days") || strings.Contains(s, "calibrated") {
		t.Errorf("verdict:\n%s", s)
	}
}

func TestBinsWithinChanceAreNotOverConfident(t *testing.T) {
	// Five forecasts of 0.5, one came true: above by 0.3, within
	// 0.05 + two standard errors (0.497).
	fs := []Forecast{{P: 0.5, Came: true}, {P: 0.5}, {P: 0.5}, {P: 0.5}, {P: 0.5}}
	b := Tally(7, fs).Bins[0]
	if !b.Above() || b.OverConfident() {
		t.Errorf("bin %+v: want above, within chance", b)
	}
	var out bytes.Buffer
	WriteVerdict(&out, []Named{{"k", Tally(7, fs)}})
	if !strings.Contains(out.String(), "chance explains them") {
		t.Errorf("verdict:\n%s", out.String())
	}
}
