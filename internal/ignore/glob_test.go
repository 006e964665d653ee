package ignore

import (
	"strings"
	"testing"
)

// Outcomes of wildmatchCases.
const (
	no    = 0
	yes   = 1
	wmErr = -1 // compileGlob refuses the pattern; git's wildmatch aborts, matching nothing
)

// wildmatchCases are git's t/t3070-wildmatch.sh cases, with the outcome of
// its first column (wildmatch with WM_PATHNAME, case-sensitive).
var wildmatchCases = []struct {
	text, pattern string
	want          int
}{
	// Basic wildmatch features.
	{"foo", "foo", yes},
	{"foo", "bar", no},
	{"", "", yes},
	{"foo", "???", yes},
	{"foo", "??", no},
	{"foo", "*", yes},
	{"foo", "f*", yes},
	{"foo", "*f", no},
	{"foo", "*foo*", yes},
	{"foobar", "*ob*a*r*", yes},
	{"aaaaaaabababab", "*ab", yes},
	{"foo*", `foo\*`, yes},
	{"foobar", `foo\*bar`, no},
	{`f\oo`, `f\\oo`, yes},
	{"ball", "*[al]?", yes},
	{"ten", "[ten]", no},
	{"ten", "**[!te]", yes},
	{"ten", "**[!ten]", no},
	{"ten", "t[a-g]n", yes},
	{"ten", "t[!a-g]n", no},
	{"ton", "t[!a-g]n", yes},
	{"ton", "t[^a-g]n", yes},
	{"a]b", "a[]]b", yes},
	{"a-b", "a[]-]b", yes},
	{"a]b", "a[]-]b", yes},
	{"aab", "a[]-]b", no},
	{"aab", "a[]a-]b", yes},
	{"]", "]", yes},

	// Extended slash-matching features.
	{"foo/baz/bar", "foo*bar", no},
	{"foo/baz/bar", "foo**bar", no},
	{"foobazbar", "foo**bar", yes},
	{"foo/baz/bar", "foo/**/bar", yes},
	{"foo/baz/bar", "foo/**/**/bar", yes},
	{"foo/b/a/z/bar", "foo/**/bar", yes},
	{"foo/b/a/z/bar", "foo/**/**/bar", yes},
	{"foo/bar", "foo/**/bar", yes},
	{"foo/bar", "foo/**/**/bar", yes},
	{"foo/bar", "foo?bar", no},
	{"foo/bar", "foo[/]bar", no},
	{"foo/bar", "foo[^a-z]bar", no},
	{"foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", no},
	{"foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", yes},
	{"foo", "**/foo", yes},
	{"XXX/foo", "**/foo", yes},
	{"bar/baz/foo", "**/foo", yes},
	{"bar/baz/foo", "*/foo", no},
	{"foo/bar/baz", "**/bar*", no},
	{"deep/foo/bar/baz", "**/bar/*", yes},
	{"deep/foo/bar/baz/", "**/bar/*", no},
	{"deep/foo/bar/baz/", "**/bar/**", yes},
	{"deep/foo/bar", "**/bar/*", no},
	{"deep/foo/bar/", "**/bar/**", yes},
	{"foo/bar/baz", "**/bar**", no},
	{"foo/bar/baz/x", "*/bar/**", yes},
	{"deep/foo/bar/baz/x", "*/bar/**", no},
	{"deep/foo/bar/baz/x", "**/bar/*/*", yes},

	// Various additional tests.
	{"acrt", "a[c-c]st", no},
	{"acrt", "a[c-c]rt", yes},
	{"]", "[!]-]", no},
	{"a", "[!]-]", yes},
	{"", `\`, wmErr},
	{`\`, `\`, wmErr},
	{`XXX/\`, `*/\`, wmErr},
	{`XXX/\`, `*/\\`, yes},
	{"foo", "foo", yes},
	{"@foo", "@foo", yes},
	{"foo", "@foo", no},
	{"[ab]", `\[ab]`, yes},
	{"[ab]", "[[]ab]", yes},
	{"[ab]", "[[:]ab]", yes},
	{"[ab]", "[[::]ab]", wmErr},
	{"[ab]", "[[:digit]ab]", yes},
	{"[ab]", `[\[:]ab]`, yes},
	{"?a?b", `\??\?b`, yes},
	{"abc", `\a\b\c`, yes},
	{"foo", "", no},
	{"foo/bar/baz/to", "**/t[o]", yes},

	// Character class tests.
	{"a1B", "[[:alpha:]][[:digit:]][[:upper:]]", yes},
	{"a", "[[:digit:][:upper:][:space:]]", no},
	{"A", "[[:digit:][:upper:][:space:]]", yes},
	{"1", "[[:digit:][:upper:][:space:]]", yes},
	{"1", "[[:digit:][:upper:][:spaci:]]", wmErr},
	{" ", "[[:digit:][:upper:][:space:]]", yes},
	{".", "[[:digit:][:upper:][:space:]]", no},
	{".", "[[:digit:][:punct:][:space:]]", yes},
	{"5", "[[:xdigit:]]", yes},
	{"f", "[[:xdigit:]]", yes},
	{"D", "[[:xdigit:]]", yes},
	{"_", "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]", yes},
	{".", "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", yes},
	{"5", "[a-c[:digit:]x-z]", yes},
	{"b", "[a-c[:digit:]x-z]", yes},
	{"y", "[a-c[:digit:]x-z]", yes},
	{"q", "[a-c[:digit:]x-z]", no},

	// Additional tests, including some malformed wildmatch patterns.
	{"]", `[\\-^]`, yes},
	{"[", `[\\-^]`, no},
	{"-", `[\-_]`, yes},
	{"]", `[\]]`, yes},
	{`\]`, `[\]]`, no},
	{`\`, `[\]]`, no},
	{"ab", "a[]b", wmErr},
	{"a[]b", "a[]b", wmErr},
	{"ab[", "ab[", wmErr},
	{"ab", "[!", wmErr},
	{"ab", "[-", wmErr},
	{"-", "[-]", yes},
	{"-", "[a-", wmErr},
	{"-", "[!a-", wmErr},
	{"-", "[--A]", yes},
	{"5", "[--A]", yes},
	{" ", "[ --]", yes},
	{"$", "[ --]", yes},
	{"-", "[ --]", yes},
	{"0", "[ --]", no},
	{"-", "[---]", yes},
	{"-", "[------]", yes},
	{"j", "[a-e-n]", no},
	{"-", "[a-e-n]", yes},
	{"a", "[!------]", yes},
	{"[", "[]-a]", no},
	{"^", "[]-a]", yes},
	{"^", "[!]-a]", no},
	{"[", "[!]-a]", yes},
	{"^", "[a^bc]", yes},
	{"-b]", "[a-]b]", yes},
	{`\`, `[\]`, wmErr},
	{`\`, `[\\]`, yes},
	{`\`, `[!\\]`, no},
	{"G", `[A-\\]`, yes},
	{"aaabbb", "b*a", no},
	{"aabcaa", "*ba*", no},
	{",", "[,]", yes},
	{",", `[\\,]`, yes},
	{`\`, `[\\,]`, yes},
	{"-", "[,-.]", yes},
	{"+", "[,-.]", no},
	{"-.]", "[,-.]", no},
	{"2", `[\1-\3]`, yes},
	{"3", `[\1-\3]`, yes},
	{"4", `[\1-\3]`, no},
	{`\`, `[[-\]]`, yes},
	{"[", `[[-\]]`, yes},
	{"]", `[[-\]]`, yes},
	{"-", `[[-\]]`, no},

	// Test recursion.
	{"-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", yes},
	{"-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", no},
	{"-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", no},
	{"XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", yes},
	{"XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", no},
	{"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t", yes},
	{"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t", no},
	{"foo", "*/*/*", no},
	{"foo/bar", "*/*/*", no},
	{"foo/bba/arr", "*/*/*", yes},
	{"foo/bb/aa/rr", "*/*/*", no},
	{"foo/bb/aa/rr", "**/**/**", yes},
	{"abcXdefXghi", "*X*i", yes},
	{"ab/cXd/efXg/hi", "*X*i", no},
	{"ab/cXd/efXg/hi", "*/*X*/*/*i", yes},
	{"ab/cXd/efXg/hi", "**/*X*/**/*i", yes},

	// Beyond t3070: "**" forms and escaped slashes.
	{"a/b", `a/**\/b`, no}, // an escaped slash keeps "**" from matching nothing
	{"a/x/b", `a/**\/b`, yes},
	{"x/a/b", "**/a/**/b", yes},
	{"a/b/", "a/**/", yes},
	{"a/", "a/**/", yes},
	{"a/x/c", "a**/c", no}, // "**" not after "/" is "*" (git's pathname matching differs)
	{"ab/c", "a**/c", yes},
}

func TestWildmatch(t *testing.T) {
	for _, tc := range wildmatchCases {
		g, err := compileGlob(tc.pattern)
		switch {
		case tc.want == wmErr && err == nil:
			t.Errorf("compileGlob(%q) succeeded, want an error", tc.pattern)
		case tc.want != wmErr && err != nil:
			t.Errorf("compileGlob(%q): %v", tc.pattern, err)
		case err == nil && g.match(tc.text) != (tc.want == yes):
			t.Errorf("%q against %q: got %v, want %v", tc.pattern, tc.text, !(tc.want == yes), tc.want == yes)
		}
	}
}

// TestGlobKinds checks that the literal and suffix shortcuts agree with
// the automaton, by running both on the same patterns.
func TestGlobKinds(t *testing.T) {
	texts := []string{"", "a", "x.log", "a/x.log", ".log", "x.lo", "foo", "a/foo", "x.log/"}
	for _, p := range []string{"foo", "a/foo", "*.log", "*", "*foo"} {
		g, err := compileGlob(p)
		if err != nil || g.kind == globOps {
			t.Fatalf("compileGlob(%q) = kind %v, %v; want a shortcut", p, g.kind, err)
		}
		auto := automaton(t, p)
		for _, text := range texts {
			if got, want := g.match(text), auto.match(text); got != want {
				t.Errorf("%q against %q: shortcut %v, automaton %v", p, text, got, want)
			}
		}
	}
}

// automaton compiles p into ops, bypassing the shortcuts.
func automaton(t *testing.T, p string) glob {
	t.Helper()
	var ops []op
	for i := 0; i < len(p); {
		o, next, err := nextOp(p, i)
		if err != nil || o.fork {
			t.Fatalf("automaton(%q): %v (forks not supported here)", p, err)
		}
		ops, i = append(ops, o), next
	}
	return glob{kind: globOps, ops: ops}
}

// TestNoBacktracking runs patterns that take exponential time with naive
// backtracking on texts that almost match. It has no time assertion: with
// backtracking it would not finish within the test timeout.
func TestNoBacktracking(t *testing.T) {
	long := strings.Repeat("a", 5000)
	deep := strings.Repeat("a/", 2000) + "c"
	if g, _ := compileGlob(strings.Repeat("*a", 30) + "*b?"); g.prefix != "" || g.suffix != "" {
		t.Fatalf("test bug: literal prefix %q, suffix %q", g.prefix, g.suffix)
	}
	for _, tc := range []struct {
		pattern, text string
		want          bool
	}{
		// Trailing "?" defeats the literal prefix and suffix checks, so
		// the automaton runs over the whole text.
		{strings.Repeat("*a", 30) + "*b?", long, false},
		{strings.Repeat("*a", 30) + "?", long, true},
		{strings.Repeat("**/a/", 20) + "b?", deep + "c", false},
		{strings.Repeat("**/a/", 20) + "c?", deep + "c", true},
		{strings.Repeat("?", 300), long[:300], true}, // more ops than fit on the stack
		{strings.Repeat("?", 300), long[:299], false},
	} {
		g, err := compileGlob(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.match(tc.text); got != tc.want {
			t.Errorf("%.20q… against %d bytes: got %v, want %v", tc.pattern, len(tc.text), got, tc.want)
		}
	}
}
