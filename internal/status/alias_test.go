package status

import (
	"testing"
	"time"
)

// TestFoldAliases: captures of one page under its two paths in one visit
// are one; the same path again, or a capture after the gap, is another
// visit.
func TestFoldAliases(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration, path string) aliasCapture {
		return aliasCapture{c: pageCapture{Time: t0.Add(d)}, path: path}
	}
	cases := []struct {
		name string
		caps []aliasCapture
		want []time.Duration
	}{
		{"one visit, both paths", []aliasCapture{at(0, "/"), at(time.Minute, "/index.html")}, []time.Duration{0}},
		{"same path twice", []aliasCapture{at(0, "/"), at(time.Minute, "/")}, []time.Duration{0, time.Minute}},
		{"two visits", []aliasCapture{at(0, "/"), at(time.Minute, "/index.html"), at(24*time.Hour, "/index.html"), at(24*time.Hour+time.Second, "/")},
			[]time.Duration{0, 24 * time.Hour}},
		{"after the gap", []aliasCapture{at(0, "/"), at(7*time.Hour, "/index.html")}, []time.Duration{0, 7 * time.Hour}},
		{"none", nil, nil},
	}
	for _, c := range cases {
		got := foldAliases(c.caps, 6*time.Hour)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d captures, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i, d := range c.want {
			if !got[i].Time.Equal(t0.Add(d)) {
				t.Errorf("%s: capture %d at %v, want %v", c.name, i, got[i].Time, t0.Add(d))
			}
		}
	}
}
