package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lazarus-preserve/lazarus/internal/status"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestPrintable: control and format characters and invalid UTF-8 are
// escaped, everything else is kept.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.org/about/": "https://example.org/about/",
		"café — ok":                  "café — ok",
		"a\x1b[2Jb":                  `a\x1b[2Jb`,
		"line\nbreak\r":              `line\nbreak\r`,
		"bell\a del\x7f c1\u009b":    `bell\a del\x7f c1\u009b`,
		"rtl\u202eexe.html":          `rtl\u202eexe.html`,
		"bad \xff utf8":              `bad \xff utf8`,
		"real \ufffd replacement":    `real \ufffd replacement`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// hostile is a string an archive could plant in a listing's original
// URL: it clears the screen and sets the terminal title.
const hostile = "https://example.org/\x1b[2J\x1b]0;pwned\a\u202e"

// TestStatusPrintEscapesControlCharacters: status's text summary never
// writes a control character from an archive's listing (source errors,
// problems, notes) to the terminal.
func TestStatusPrintEscapesControlCharacters(t *testing.T) {
	rep := &status.Report{Site: "https://example.org/", Now: time.Now(),
		Sources:  []status.SourceReport{{Name: "cdx=" + hostile, Error: "GET " + hostile + ": HTTP 503"}},
		Problems: []string{"wayback " + hostile + ": truncated"}, Notes: []string{"note " + hostile}}
	var buf bytes.Buffer
	printStatus(&buf, rep)
	checkNoControl(t, buf.String())
}

// TestRecoverPrintEscapesControlCharacters: the same for recover's
// summary.
func TestRecoverPrintEscapesControlCharacters(t *testing.T) {
	rep := &lzrecover.Report{Generation: "g", Problems: []string{"wayback " + hostile + ": HTTP 503"},
		Segments: []lzrecover.SegmentReport{{Name: "app", Status: "partial", Detail: hostile, Paths: []string{hostile}}}}
	var buf bytes.Buffer
	printRecover(&buf, rep)
	checkNoControl(t, buf.String())
}

func checkNoControl(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, r := range line {
			if !printableRune(r) {
				t.Fatalf("printed %q: it holds %U", line, r)
			}
		}
	}
	if !strings.Contains(out, `\x1b[2J`) {
		t.Fatalf("the hostile string is not shown escaped: %q", out)
	}
}

// FuzzPrintable: whatever an archive sends, printable's result is valid
// UTF-8 without a control or format character, and a string that has
// none is left as is.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "a\u202eb", "\xff\xfe", "\ufffd", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := printable(s)
		if !utf8.ValidString(out) {
			t.Fatalf("printable(%q) = %q: invalid UTF-8", s, out)
		}
		clean := true
		for _, r := range out {
			if !printableRune(r) {
				t.Fatalf("printable(%q) = %q: holds %U", s, out, r)
			}
		}
		for _, r := range s {
			clean = clean && printableRune(r)
		}
		if clean && out != s {
			t.Fatalf("printable(%q) = %q, want it unchanged", s, out)
		}
	})
}
