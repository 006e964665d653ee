package statushtml

import (
	"math"
	"time"
)

// afterScale maps a time after the audit, in [0, end], onto [r0, r1]
// logarithmically (log(1 + d/unit)): the model's times crowd near now
// (now, an hour, six hours, a day) and spread out later (a week, a month),
// and a linear axis would stack the early ones on the left edge.
type afterScale struct {
	end, unit time.Duration
	r0, r1    float64
}

// newAfterScale makes the axis for [0, end]; end is at least a minute.
func newAfterScale(end time.Duration, r0, r1 float64) afterScale {
	end = max(end, time.Minute)
	unit := time.Hour
	if end < 4*day {
		unit = max(end/96, time.Second) // an axis of hours is nearly linear
	}
	return afterScale{end, unit, r0, r1}
}

// at maps d, clamped to [0, end].
func (s afterScale) at(d time.Duration) float64 {
	d = min(max(d, 0), s.end)
	f := math.Log1p(float64(d)/float64(s.unit)) / math.Log1p(float64(s.end)/float64(s.unit))
	return s.r0 + f*(s.r1-s.r0)
}

// afterMarks are the times an axis after the audit may label.
var afterMarks = []time.Duration{0, time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, day, 3 * day, 7 * day,
	14 * day, 30 * day, 60 * day, 91 * day, 182 * day, 365 * day, 730 * day, 1826 * day, 3652 * day}

// minTickGap is the room, in user units, a time label needs.
const minTickGap = 34

// afterTicks labels the axis at the marks within it ("now", "+1 h",
// "+7 d"), leaving out a mark too close to the one before; the axis's end
// is labelled when it is not a mark and there is room.
func afterTicks(s afterScale) []tick {
	var out []tick
	last := math.Inf(-1)
	add := func(d time.Duration) {
		if x := s.at(d); x-last >= minTickGap {
			out = append(out, tick{num(x), fmtAfter(d)})
			last = x
		}
	}
	for _, d := range afterMarks {
		if d <= s.end {
			add(d)
		}
	}
	if len(out) > 0 && out[len(out)-1].Label != fmtAfter(s.end) {
		add(s.end)
	}
	return out
}
