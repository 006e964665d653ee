package statushtml

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// day is 24 hours.
const day = 24 * time.Hour

// fmtTime formats t in UTC to the minute; the zero time is "unknown".
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// rfc3339 is t in machine form for data- attributes, "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// fmtAfter names a time after now: "now", "+7 d", "+36 h", "+90 min".
func fmtAfter(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d%day == 0:
		return fmt.Sprintf("+%d d", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("+%d h", d/time.Hour)
	case d >= day:
		return fmt.Sprintf("+%.1f d", d.Hours()/24)
	default:
		return fmt.Sprintf("+%d min", d/time.Minute)
	}
}

// fmtPercent formats a probability as a percentage with two decimals; a
// value that is not a probability is shown as a dash.
func fmtPercent(p float64) string {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return "—"
	}
	return strconv.FormatFloat(p*100, 'f', 2, 64) + " %"
}

// machine formats v exactly (shortest representation) for data- attributes.
func machine(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// maxWordShown bounds one word of a sentence the page shows whole.
const maxWordShown = 60

// shortenWords shortens, in a sentence shown whole, each word (a run
// without spaces) longer than maxWordShown runes, keeping its start and
// end around an ellipsis. The project's own words are never that long;
// the words that can be are URLs and names from the archives or the
// site, which an attacker may make as long as they like. The
// sentence's own words are left whole, so it never loses its meaning
// mid-word.
func shortenWords(s string) string {
	var b strings.Builder
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shorten(w, maxWordShown))
	}
	return b.String()
}

// shorten cuts s to at most n runes, keeping its start and end around an
// ellipsis; it is made plain first.
func shorten(s string, n int) string {
	s = plain(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) * 2 / 3
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// plain replaces, in a string from an archive, a page or a manifest,
// invalid UTF-8 and Unicode format characters (bidi overrides and
// isolates, zero-width characters) by U+FFFD: html/template escapes
// markup but not these, and a right-to-left override in a URL or a
// problem would show it reversed, another URL than the one it is.
func plain(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !strings.ContainsFunc(s, isFormat) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isFormat(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// isFormat reports whether r is a Unicode format character (category Cf).
func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }
