package statushtml

import (
	"math"
	"strconv"
	"time"
)

// Chart geometry, in SVG user units (CSS pixels at 100 %).
const (
	chartWidth  = 640 // whole chart
	marginLeft  = 44  // room for the y labels
	marginRight = 14
	marginTop   = 10
	marginBelow = 26 // room for the x labels
)

// scale maps a domain interval linearly onto a range interval.
type scale struct{ d0, d1, r0, r1 float64 }

// at maps v; a degenerate domain maps everything to the range's start.
func (s scale) at(v float64) float64 {
	if s.d1 == s.d0 || math.IsNaN(v) {
		return s.r0
	}
	return s.r0 + (v-s.d0)/(s.d1-s.d0)*(s.r1-s.r0)
}

// timeScale maps times in [from, to] onto [r0, r1].
func timeScale(from, to time.Time, r0, r1 float64) scale {
	return scale{0, float64(to.Sub(from)), r0, r1}
}

// atTime maps t on a scale made by timeScale with the same from.
func (s scale) atTime(from, t time.Time) float64 {
	return s.at(float64(t.Sub(from)))
}

// num formats a coordinate to one decimal, the precision a screen needs.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// tick is one labelled position on an axis.
type tick struct {
	Pos   string // the x or y coordinate
	Label string
}

// tickSteps are the steps a time axis may use, shortest first.
var tickSteps = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	day, 2 * day, 7 * day, 14 * day, 30 * day, 60 * day, 91 * day, 182 * day, 365 * day,
	730 * day, 1826 * day, 3652 * day}

// maxTicks bounds the labels on one axis.
const maxTicks = 7

// timeTicks labels [from, to] at a step of whole minutes, hours or days
// that gives fewer than limit labels (the shortest such step: an axis of
// hours is labelled in hours, one of minutes in minutes), aligned to UTC
// midnight for day steps.
func timeTicks(from, to time.Time, s scale, limit int) []tick {
	span := to.Sub(from)
	step := tickSteps[len(tickSteps)-1]
	for _, st := range tickSteps {
		if span/st < time.Duration(limit) {
			step = st
			break
		}
	}
	if span/step >= time.Duration(limit)*2 { // beyond ten years: no labels rather than thousands
		return nil
	}
	layout := "2006-01-02"
	if step < day {
		layout = "01-02 15:04"
	}
	t := from.UTC().Truncate(step)
	if step >= day {
		y, m, d := from.UTC().Date()
		t = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	var out []tick
	for ; !t.After(to); t = t.Add(step) {
		if t.Before(from) {
			continue
		}
		out = append(out, tick{num(s.atTime(from, t)), t.Format(layout)})
	}
	return out
}

// intSteps are the integers 0..top at a step of 1, 2 or 5 × 10^n that
// gives at most maxTicks of them.
func intSteps(top int) []int {
	step := 1
	for mult := 0; top/step >= maxTicks; mult++ {
		step = []int{2, 5, 10}[mult%3] * pow10(mult/3)
	}
	var out []int
	for v := 0; v <= top; v += step {
		out = append(out, v)
	}
	return out
}

// intTicks labels the integers of intSteps(top).
func intTicks(top int, s scale) []tick {
	var out []tick
	for _, v := range intSteps(top) {
		out = append(out, tick{num(s.at(float64(v))), strconv.Itoa(v)})
	}
	return out
}

// pow10 is 10^n.
func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}
