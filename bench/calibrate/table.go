package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// binEdges are the calibration bins' lower edges; the last bin ends at 1.
var binEdges = []float64{0, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99}

// Bin is one calibration bin of one horizon.
type Bin struct {
	From, To  float64
	Worlds    int
	Predicted float64 // mean prediction
	Realised  float64 // share of worlds recoverable by the horizon
}

// Above reports whether the bin has 5 worlds or more and predicts more
// than 0.05 above what came true: the goal's test, which small bins fail
// by chance alone.
func (b Bin) Above() bool { return b.Worlds >= 5 && b.Predicted-b.Realised > 0.05 }

// OverConfident reports whether the bin is Above by more than two standard
// errors of its realised frequency too: more than chance explains.
func (b Bin) OverConfident() bool {
	se := math.Sqrt(b.Predicted * (1 - b.Predicted) / float64(b.Worlds))
	return b.Above() && b.Predicted-b.Realised > 0.05+2*se
}

// Horizon is the calibration of one horizon.
type Horizon struct {
	Days          int
	Bins          []Bin
	Brier         float64 // of the model's predictions
	PrintedBrier  float64 // of the planner's figure
	Realised      float64 // share of worlds recoverable by the horizon
	Predicted     float64 // mean prediction
	Above         int     // bins of 5 worlds or more predicting more than 0.05 above the truth
	OverConfident int     // of them, those beyond two standard errors
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
		out := Horizon{Days: int(hz.Hours() / 24)}
		bins := make([]Bin, len(binEdges))
		for i, e := range binEdges {
			bins[i].From, bins[i].To = e, 1
			if i+1 < len(binEdges) {
				bins[i].To = binEdges[i+1]
			}
		}
		for _, w := range ws {
			p, y := w.predicted[h], 0.0
			if w.realised[h] {
				y = 1
			}
			out.Brier += (p - y) * (p - y) / float64(len(ws))
			out.PrintedBrier += (w.printed - y) * (w.printed - y) / float64(len(ws))
			out.Realised += y / float64(len(ws))
			out.Predicted += p / float64(len(ws))
			i := len(binEdges) - 1
			for i > 0 && p < binEdges[i] {
				i--
			}
			bins[i].Worlds++
			bins[i].Predicted += p
			bins[i].Realised += y
		}
		for _, b := range bins {
			if b.Worlds == 0 {
				continue
			}
			b.Predicted /= float64(b.Worlds)
			b.Realised /= float64(b.Worlds)
			if b.Above() {
				out.Above++
			}
			if b.OverConfident() {
				out.OverConfident++
			}
			out.Bins = append(out.Bins, b)
		}
		r.Horizons = append(r.Horizons, out)
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
			fmt.Fprintf(w, "    %-11s %6s %9s %8s\n", "predicted", "worlds", "mean", "realised")
			for _, b := range h.Bins {
				flag := ""
				switch {
				case b.OverConfident():
					flag = "  OVER-CONFIDENT"
				case b.Above():
					flag = "  above by > 0.05, within chance"
				}
				fmt.Fprintf(w, "    %-11s %6d %9.3f %8.3f%s\n", fmt.Sprintf("%.2f–%.2f", b.From, b.To), b.Worlds, b.Predicted, b.Realised, flag)
			}
		}
	}
	var over, above []string
	for _, r := range rs {
		for _, h := range r.Horizons {
			if h.OverConfident > 0 {
				over = append(over, fmt.Sprintf("%s within %d days", r.Kind, h.Days))
			}
			if h.Above > 0 {
				above = append(above, fmt.Sprintf("%s within %d days", r.Kind, h.Days))
			}
		}
	}
	if len(over) == 0 {
		fmt.Fprintln(w, "\nno bin of 5 worlds or more over-confident by more than 0.05 beyond chance (two standard errors)")
	} else {
		fmt.Fprintf(w, "\nover-confident by more than 0.05 beyond chance: %s\n", strings.Join(over, "; "))
	}
	if len(above) > 0 {
		fmt.Fprintf(w, "above by more than 0.05, chance included: %s\n", strings.Join(above, "; "))
	}
}
