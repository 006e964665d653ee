package statushtml

import (
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// correlationNote is the plain sentence beside the outlook.
const correlationNote = "The capture model is fitted to each archive's history: site sweeps by link depth (bursts against the background), " +
	"one-page captures, an ingest lag and truncation. Its figures are lower bounds within each horizon, computed, not sampled; " +
	"blocks already archived count as certain, and files (WARC files, mirrors) capture nothing more."

// outlook is P_rec of the newest generation at the table's times (see
// tableTimes) in each view, and per segment.
type outlook struct {
	Generation string
	Target     string // in words
	TargetP    string // machine form
	Pages      int    // modelled
	Carriers   int    // of which carry blocks
	Error      string
	// Unavailable: the model was not run because the generation's
	// carriers are unknown (status.AssessCarriersUnknown); Error says
	// why.
	Unavailable bool
	Times       []column
	Views       []viewRow
}

// column is one reported time after now.
type column struct {
	AfterNS int64
	Label   string
}

// viewRow is one view: the generation's P_rec per column, when it reaches
// the target, and its segments.
type viewRow struct {
	Name, Label string
	Cells       []probCell
	Reached     bool
	ReachNS     int64
	Reach       string
	Segments    []segmentRow
}

// segmentRow is one segment's P_rec per column.
type segmentRow struct {
	Name  string
	Cells []probCell
}

// probCell is one probability; Missing when the view did not report the
// column's time.
type probCell struct {
	Missing bool
	AfterNS int64
	P, SE   string // machine form
	Text    string // percentage, with ± one standard error when estimated
}

// viewLabels describe the model's views in words.
var viewLabels = map[string]string{status.ModelViewName: "Capture model, fitted to the archives' history (lower bound)"}

// makeOutlook lays out r's assessment, nil if there is none.
func makeOutlook(a *status.Assessment) *outlook {
	if a == nil {
		return nil
	}
	o := &outlook{Generation: a.Generation, Target: fmtPercent(a.Target), TargetP: machine(a.Target),
		Pages: a.Pages, Carriers: a.Carriers, Error: a.Error, Unavailable: a.Reason == status.AssessCarriersUnknown}
	var times []time.Duration
	for _, v := range a.Views {
		for _, p := range v.At {
			if !slices.Contains(times, p.After) {
				times = append(times, p.After)
			}
		}
	}
	slices.Sort(times)
	times = tableTimes(times)
	for _, t := range times {
		o.Times = append(o.Times, column{int64(t), fmtAfter(t)})
	}
	for _, v := range a.Views {
		row := viewRow{Name: v.Name, Label: v.Name, Cells: cells(times, v.At), Reached: v.Reached,
			ReachNS: int64(v.ReachIn), Reach: reachText(v)}
		if l, ok := viewLabels[v.Name]; ok {
			row.Label = l
		}
		for _, s := range v.Segments {
			row.Segments = append(row.Segments, segmentRow{s.Name, cells(times, s.At)})
		}
		o.Views = append(o.Views, row)
	}
	return o
}

// tableMarks are the times the outlook table shows when the model
// computed all of them: now, in a week, in a month. The chart shows every
// time computed.
var tableMarks = []time.Duration{0, 7 * day, 30 * day}

// tableTimes are the table's columns: tableMarks if the model computed
// them all, else every time it computed.
func tableTimes(times []time.Duration) []time.Duration {
	for _, m := range tableMarks {
		if !slices.Contains(times, m) {
			return times
		}
	}
	return slices.Clone(tableMarks)
}

// cells lays out the probabilities at the given times.
func cells(times []time.Duration, at []status.Probability) []probCell {
	out := make([]probCell, len(times))
	for i, t := range times {
		j := slices.IndexFunc(at, func(p status.Probability) bool { return p.After == t })
		if j < 0 {
			out[i] = probCell{Missing: true, AfterNS: int64(t), Text: "—"}
			continue
		}
		p := at[j]
		c := probCell{AfterNS: int64(t), P: machine(p.P), SE: machine(p.StdErr), Text: fmtPercent(p.P)}
		if p.StdErr > 0 {
			c.Text += " ± " + fmtPercent(p.StdErr)
		}
		out[i] = c
	}
	return out
}

// reachText says when a view reaches the target.
func reachText(v status.ModelView) string {
	switch {
	case !v.Reached:
		return "not within " + humane.Duration(status.ReachHorizon)
	case v.ReachIn <= 0:
		return "already"
	default:
		return "by " + humane.Duration(v.ReachIn)
	}
}
