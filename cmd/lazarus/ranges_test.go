package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestRangesRefused: out-of-range numbers are usage errors naming the
// flag, before any request: status --rate -3, verify --hygiene-pages -7
// and capture --dry-run --rate 0/min are refused.
func TestRangesRefused(t *testing.T) {
	for _, c := range []struct {
		run  func([]string, *bytes.Buffer, *bytes.Buffer) int
		args []string
		want string
	}{
		{func(a []string, o, e *bytes.Buffer) int { return runStatus(a, o, e) },
			[]string{"--url", "https://example.org/", "--key", "/nonexistent", "--rate", "-3"}, "archive request rate -3"},
		{func(a []string, o, e *bytes.Buffer) int { return runVerify(a, o, e) },
			[]string{"--url", "https://example.org/", "--key", "/nonexistent", "--hygiene-pages", "-7"}, "--hygiene-pages -7"},
		{func(a []string, o, e *bytes.Buffer) int { return runCapture(a, o, e) },
			[]string{"--url", "https://example.org/", "--key", "/nonexistent", "--dry-run", "--rate", "0/min"}, "--rate"},
	} {
		var out, errb bytes.Buffer
		if code := c.run(c.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errb.String(), exitUsage, c.want)
		}
	}
}

// TestPartialTimesMeanTheirEnd: a compact date means the end of that day
// as the dashed one does (--as-of 20261125 is 2026-11-25's last second,
// not its midnight), and a month or year its end.
func TestPartialTimesMeanTheirEnd(t *testing.T) {
	day, _ := parseTime("--at", "2026-11-25")
	for v, want := range map[string]string{
		"20261125": day.UTC().Format(time.RFC3339), "202611": "2026-11-30T23:59:59Z", "2026": "2026-12-31T23:59:59Z",
		"2026112512": "2026-11-25T12:59:59Z", "20261125120000": "2026-11-25T12:00:00Z",
	} {
		got, err := parseTime("--at", v)
		if err != nil || got.UTC().Format(time.RFC3339) != want {
			t.Errorf("%s: %v (%v), want %s", v, got, err, want)
		}
	}
}
