// Package problems keeps the non-fatal problems a run reports (recovery,
// status, verify): bounded in number and in length, since their text
// often quotes what an archive or a page said, and a hostile one could
// otherwise grow a report, and memory, without bound.
package problems

import (
	"fmt"
	"unicode/utf8"
)

// MaxLines bounds the lines listed; further ones are only counted.
const MaxLines = 1000

// MaxLineBytes bounds one line; a longer one is cut (see Clip).
const MaxLineBytes = 1024

// Add appends the formatted line to *lines, clipped to MaxLineBytes, or
// counts it in *omitted once MaxLines are listed.
func Add(lines *[]string, omitted *int, format string, args ...any) {
	if len(*lines) >= MaxLines {
		*omitted++
		return
	}
	*lines = append(*lines, Clip(fmt.Sprintf(format, args...), MaxLineBytes))
}

// Clip returns s cut to at most n bytes at a character boundary, ending
// in "…" when it was cut.
func Clip(s string, n int) string {
	const mark = "…"
	if len(s) <= n {
		return s
	}
	cut := max(n-len(mark), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
