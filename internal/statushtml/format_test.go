package statushtml

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFmtAfter(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "now"}, {-time.Hour, "now"}, {7 * day, "+7 d"}, {36 * time.Hour, "+36 h"},
		{36*time.Hour + 30*time.Minute, "+1.5 d"}, {90 * time.Minute, "+90 min"},
	} {
		if got := fmtAfter(tc.d); got != tc.want {
			t.Errorf("fmtAfter(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFmtPercent(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want string
	}{
		{0, "0.00 %"}, {0.5624, "56.24 %"}, {0.9987, "99.87 %"}, {1, "100.00 %"},
		{math.NaN(), "—"}, {-0.1, "—"}, {1.5, "—"}, {math.Inf(1), "—"},
	} {
		if got := fmtPercent(tc.p); got != tc.want {
			t.Errorf("fmtPercent(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := fmtPercentShort(0.25); got != "25 %" {
		t.Errorf("fmtPercentShort(0.25) = %q", got)
	}
}

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"https://example.org/a/very/long/path.html", 16, "https://ex….html"},
		{"ééééééééé", 4, "éé…é"},
		{"a\xffb", 10, "a\uFFFDb"},
		{"https://example.org/\u202egpj.exe", 40, "https://example.org/\uFFFDgpj.exe"}, // a bidi override shows the URL reversed
		{"a\u2066b\u200bc", 10, "a\uFFFDb\uFFFDc"},
	} {
		got := shorten(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if utf8.RuneCountInString(got) > tc.n {
			t.Errorf("shorten(%q, %d) = %q is longer than %d runes", tc.s, tc.n, got, tc.n)
		}
	}
}

// TestTimeTicks: a time axis of any span has a few labels, in order, all
// within the axis.
func TestTimeTicks(t *testing.T) {
	from := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, span := range []time.Duration{time.Hour, 5 * time.Hour, day, 3 * day, 20 * day, 90 * day, 400 * day, 9 * 365 * day} {
		s := timeScale(from, from.Add(span), 100, 500)
		ticks := timeTicks(from, from.Add(span), s, maxTicks)
		if len(ticks) == 0 || len(ticks) >= maxTicks {
			t.Errorf("span %v: %d ticks %v, want 1..%d", span, len(ticks), ticks, maxTicks-1)
		}
		last := -1.0
		for _, tk := range ticks {
			var x float64
			if _, err := fmt.Sscan(tk.Pos, &x); err != nil || x < 100 || x > 500 || x <= last {
				t.Errorf("span %v: tick %+v out of place (after %v)", span, tk, last)
			}
			last = x
		}
	}
	// beyond the longest step the axis goes unlabelled rather than crowded
	if ticks := timeTicks(time.Time{}, time.Time{}.Add(math.MaxInt64), scale{0, 1, 0, 1}, maxTicks); ticks != nil {
		t.Errorf("a 292-year axis has %d ticks, want none", len(ticks))
	}
}

func TestIntSteps(t *testing.T) {
	for _, tc := range []struct {
		top  int
		want string
	}{
		{0, "[0]"}, {1, "[0 1]"}, {6, "[0 1 2 3 4 5 6]"}, {7, "[0 2 4 6]"}, {16, "[0 5 10 15]"},
		{255, "[0 50 100 150 200 250]"}, {1000, "[0 200 400 600 800 1000]"},
	} {
		if got := strings.Join(strings.Fields(fmt.Sprint(intSteps(tc.top))), " "); got != tc.want {
			t.Errorf("intSteps(%d) = %s, want %s", tc.top, got, tc.want)
		}
	}
}
