package main

import (
	"strconv"
	"strings"
	"unicode"
)

// printable makes a string from untrusted input (an archive's listing, a
// page, an error quoting either) safe to print on a terminal: control
// characters (C0, DEL, C1: escape sequences that could move the cursor,
// rewrite lines or set the title), Unicode format characters (bidi
// overrides that reorder what is shown) and invalid UTF-8 are written as
// Go escapes (\x1b, \u202e), the rest as is.
func printable(s string) string {
	ok := true
	for _, r := range s {
		if !printableRune(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == unicode.ReplacementChar && !strings.HasPrefix(s[i:], string(unicode.ReplacementChar)):
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case printableRune(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// printableRune reports whether r prints as itself without affecting the
// terminal: not a control or format character, and valid.
func printableRune(r rune) bool {
	return r != unicode.ReplacementChar && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r)
}
