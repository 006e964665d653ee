package main

import (
	"fmt"
	"io"

	"github.com/lazarus-preserve/lazarus/bench/internal/calibration"
)

// Horizon is the calibration of one horizon, and the planner's figure's
// Brier score beside the model's.
type Horizon struct {
	calibration.Table
	PrintedBrier float64 // of the planner's figure
}

// kindResult is the backtest of one world kind.
type kindResult struct {
	Kind     string
	Worlds   int
	Printed  float64 // the planner's figure for the plan (each page kept independently with p = 1/2), which inject printed before the capture model
	Horizons []Horizon
}

// tally makes the calibration tables of one kind's worlds.
func tally(name string, ws []world) kindResult {
	r := kindResult{Kind: name, Worlds: len(ws)}
	if len(ws) > 0 {
		r.Printed = ws[0].printed
	}
	for h, hz := range horizons {
		var fs []calibration.Forecast
		var printed float64
		for _, w := range ws {
			fs = append(fs, calibration.Forecast{P: w.predicted[h], Came: w.realised[h]})
			y := 0.0
			if w.realised[h] {
				y = 1
			}
			printed += (w.printed - y) * (w.printed - y) / float64(len(ws))
		}
		r.Horizons = append(r.Horizons, Horizon{Table: calibration.Tally(int(hz.Hours()/24), fs), PrintedBrier: printed})
	}
	return r
}

// print writes the tables.
func print(w io.Writer, rs []kindResult) {
	for _, r := range rs {
		fmt.Fprintf(w, "\n%s (%d worlds; the planner's figure for this plan, pages kept independently with p = 1/2: %.4f)\n", r.Kind, r.Worlds, r.Printed)
		for _, h := range r.Horizons {
			fmt.Fprintf(w, "  within %d days: predicted %.3f, realised %.3f; Brier %.3f (planner's figure: %.3f); bins above by > 0.05: %d, of them beyond chance: %d\n",
				h.Days, h.Predicted, h.Realised, h.Brier, h.PrintedBrier, h.Above, h.OverConfident)
			h.WriteBins(w, "    ", "worlds")
		}
	}
	var named []calibration.Named
	for _, r := range rs {
		for _, h := range r.Horizons {
			named = append(named, calibration.Named{Name: fmt.Sprintf("%s within %d days", r.Kind, h.Days), Table: h.Table})
		}
	}
	calibration.WriteVerdict(w, named)
}
