package problems

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAddBoundsLinesAndLength(t *testing.T) {
	var lines []string
	omitted := 0
	long := strings.Repeat("é", 4000) // 8000 bytes
	for i := 0; i < MaxLines+5; i++ {
		Add(&lines, &omitted, "line %d: %s", i, long)
	}
	if len(lines) != MaxLines || omitted != 5 {
		t.Fatalf("%d lines, %d omitted", len(lines), omitted)
	}
	for _, l := range lines {
		if len(l) > MaxLineBytes || !utf8.ValidString(l) || !strings.HasSuffix(l, "…") {
			t.Fatalf("line of %d bytes, valid %v: %.40q", len(l), utf8.ValidString(l), l)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"0123456789abc", 10, "0123456…"},
		{"ééééé", 6, "é…"}, // never half a character
		{"abc", 0, "…"},
	} {
		if got := Clip(tc.s, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
