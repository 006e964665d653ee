package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRangesRefused: out-of-range numbers are usage errors naming the
// flag, before any request (a user review found status --rate -3 and
// verify --hygiene-pages -7 accepted, and capture --dry-run any --rate).
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
