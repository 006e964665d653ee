// Package calibration tallies probability forecasts against what came
// true: calibration bins (mean forecast against realised frequency, with
// counts and standard errors), the Brier score, and the goal's test (no
// bin of 5 forecasts or more over-confident by more than 0.05). The
// backtests under bench/ share it, so their tables mean the same thing.
package calibration

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Edges are the bins' lower edges; the last bin ends at 1.
var Edges = []float64{0, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99}

// Forecast is one forecast probability and whether the event came true.
type Forecast struct {
	P    float64
	Came bool
}

// Bin is one calibration bin.
type Bin struct {
	From, To  float64
	Worlds    int     // forecasts in the bin
	Predicted float64 // mean forecast
	Realised  float64 // share that came true
}

// StdErr is the standard error of the bin's realised frequency if the
// forecasts were right: √(p(1−p)/n) for the mean forecast p.
func (b Bin) StdErr() float64 {
	if b.Worlds == 0 {
		return 0
	}
	return math.Sqrt(b.Predicted * (1 - b.Predicted) / float64(b.Worlds))
}

// Above reports whether the bin has 5 forecasts or more and predicts
// more than 0.05 above what came true: the goal's test, which small
// bins fail by chance alone.
func (b Bin) Above() bool { return b.Worlds >= 5 && b.Predicted-b.Realised > 0.05 }

// OverConfident reports whether the bin is Above by more than two
// standard errors too: more than chance explains.
func (b Bin) OverConfident() bool {
	return b.Above() && b.Predicted-b.Realised > 0.05+2*b.StdErr()
}

// Table is the calibration of forecasts for one horizon.
type Table struct {
	Days          int
	Worlds        int
	Bins          []Bin   // the bins holding forecasts, lowest first
	Brier         float64 // mean squared error of the forecasts
	Realised      float64 // share that came true
	Predicted     float64 // mean forecast
	Above         int     // bins of 5 forecasts or more predicting more than 0.05 above the truth
	OverConfident int     // of them, those beyond two standard errors
}

// Tally makes the table of forecasts for a horizon of days days.
func Tally(days int, fs []Forecast) Table {
	t := Table{Days: days, Worlds: len(fs)}
	bins := make([]Bin, len(Edges))
	for i, e := range Edges {
		bins[i].From, bins[i].To = e, 1
		if i+1 < len(Edges) {
			bins[i].To = Edges[i+1]
		}
	}
	n := float64(len(fs))
	for _, f := range fs {
		y := 0.0
		if f.Came {
			y = 1
		}
		t.Brier += (f.P - y) * (f.P - y) / n
		t.Realised += y / n
		t.Predicted += f.P / n
		i := len(Edges) - 1
		for i > 0 && f.P < Edges[i] {
			i--
		}
		bins[i].Worlds++
		bins[i].Predicted += f.P
		bins[i].Realised += y
	}
	for _, b := range bins {
		if b.Worlds == 0 {
			continue
		}
		b.Predicted /= float64(b.Worlds)
		b.Realised /= float64(b.Worlds)
		if b.Above() {
			t.Above++
		}
		if b.OverConfident() {
			t.OverConfident++
		}
		t.Bins = append(t.Bins, b)
	}
	return t
}

// WriteBins writes the table's bins, one a line after a header naming
// what was forecast (unit: "worlds", "pages"), each line starting with
// indent; bins above the truth are flagged.
func (t Table) WriteBins(w io.Writer, indent, unit string) {
	fmt.Fprintf(w, "%s%-11s %6s %9s %8s %7s\n", indent, "predicted", unit, "mean", "realised", "s.e.")
	for _, b := range t.Bins {
		flag := ""
		switch {
		case b.OverConfident():
			flag = "  OVER-CONFIDENT"
		case b.Above():
			flag = "  above by > 0.05, within chance"
		}
		fmt.Fprintf(w, "%s%-11s %6d %9.3f %8.3f %7.3f%s\n", indent, fmt.Sprintf("%.2f–%.2f", b.From, b.To), b.Worlds, b.Predicted, b.Realised, b.StdErr(), flag)
	}
}

// Named is a table with the name the verdict gives it ("wayback within
// 30 days").
type Named struct {
	Name  string
	Table Table
}

// WriteVerdict writes the goal's verdict over tables: which have bins of
// 5 forecasts or more above what came true by more than 0.05, and which
// of them by more than two standard errors too.
func WriteVerdict(w io.Writer, tables []Named) {
	var above, over []string
	for _, t := range tables {
		if t.Table.Above > 0 {
			above = append(above, t.Name)
		}
		if t.Table.OverConfident > 0 {
			over = append(over, t.Name)
		}
	}
	if len(above) == 0 {
		fmt.Fprintln(w, "\nno bin of 5 worlds or more predicts more than 0.05 above what came true")
		return
	}
	fmt.Fprintf(w, "\nbins of 5 worlds or more predicting more than 0.05 above what came true: %s\n", strings.Join(above, "; "))
	if len(over) == 0 {
		fmt.Fprintln(w, "none of them by more than two standard errors too (chance explains them)")
	} else {
		fmt.Fprintf(w, "of them beyond two standard errors (more than chance explains): %s\n", strings.Join(over, "; "))
	}
}
