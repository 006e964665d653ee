package ignore

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// matchCase lists paths a pattern list must exclude and must not exclude
// on their own (Match, no parent check). A path ending in "/" is a
// directory (the slash is removed before matching).
type matchCase struct {
	name     string
	patterns []string
	match    []string
	noMatch  []string
}

// gitignoreCases follow the examples and rules of gitignore(5) and git's
// t0008-ignores.sh.
var gitignoreCases = []matchCase{
	{"plain name at any depth", []string{"bar"},
		[]string{"bar", "bar/", "a/bar", "a/b/bar/"}, []string{"barx", "xbar", "bar.c", "a/barx"}},
	{"hello.* (gitignore(5))", []string{"hello.*"},
		[]string{"hello.c", "hello.", "a/hello.txt", "hello.d/"}, []string{"hello", "ahello.c", "hello.c/x"}},
	{"trailing slash: directories only", []string{"foo/"},
		[]string{"foo/", "a/foo/"}, []string{"foo", "a/foo", "foo/x", "foox/"}},
	{"doc/frotz/ is anchored", []string{"doc/frotz/"},
		[]string{"doc/frotz/"}, []string{"a/doc/frotz/", "doc/frotz", "frotz/"}},
	{"frotz/ matches at any depth", []string{"frotz/"},
		[]string{"frotz/", "a/frotz/", "doc/frotz/"}, []string{"frotz", "a/frotz"}},
	{"leading slash anchors", []string{"/bar"},
		[]string{"bar", "bar/"}, []string{"a/bar", "a/bar/"}},
	{"middle slash anchors", []string{"doc/frotz"},
		[]string{"doc/frotz", "doc/frotz/"}, []string{"a/doc/frotz", "frotz"}},
	{"foo/* matches one level", []string{"foo/*"},
		[]string{"foo/test.json", "foo/bar/", "foo/bar"}, []string{"foo/bar/hello.c", "foo/", "foo", "a/foo/bar"}},
	{"**/foo", []string{"**/foo"},
		[]string{"foo", "foo/", "a/foo", "a/b/foo/"}, []string{"foox", "a/xfoo", "foo/a"}},
	{"**/foo/bar", []string{"**/foo/bar"},
		[]string{"foo/bar", "x/foo/bar", "x/y/foo/bar/"}, []string{"foo/x/bar", "foo/bar/x"}},
	{"abc/** inside only", []string{"abc/**"},
		[]string{"abc/x", "abc/x/", "abc/x/y/z"}, []string{"abc", "abc/", "a/abc/x", "abcd/x"}},
	{"a/**/b", []string{"a/**/b"},
		[]string{"a/b", "a/x/b", "a/x/y/b", "a/b/"}, []string{"a/xb", "ab", "x/a/b", "a/b/c"}},
	{"** alone matches everything", []string{"**"},
		[]string{"a", "a/", "a/b/c"}, nil},
	{"/** matches everything", []string{"/**"},
		[]string{"a", "a/b/c"}, nil},
	{"**/ matches every directory", []string{"**/"},
		[]string{"a/", "a/b/"}, []string{"a", "a/b"}},
	{"other runs of asterisks are *", []string{"a**b"},
		[]string{"ab", "axxb", "d/ab"}, []string{"a/b"}},
	{"anchored a**b does not cross /", []string{"/x/a**b"},
		[]string{"x/ab", "x/azb"}, []string{"x/a/b", "x/a/z/b"}},
	{"*.log at any depth", []string{"*.log"},
		[]string{"a.log", ".log", "x/y/a.log", "dir.log/"}, []string{"a.logx", "a.log/x", "alog"}},
	{"anchored *.log", []string{"/*.log"},
		[]string{"a.log"}, []string{"x/a.log"}},
	{"? is one byte, not /", []string{"a?c", "/d?e"},
		[]string{"abc", "x/abc", "dxe"}, []string{"ac", "abbc", "d/e", "x/dxe"}},
	{"? is one byte of UTF-8", []string{"?", "é?"},
		[]string{"a", "éx"}, []string{"é", "éé"}},
	{"set, range and negated set", []string{"[ab]1", "c[0-9]", "d[!0-9]", "e[^x]"},
		[]string{"a1", "b1", "c5", "dx", "ey"}, []string{"c", "cx", "c10", "d5", "ex", "e/"}},
	{"set never matches /", []string{"/a[/]b", "/c[!x]d"},
		nil, []string{"a/b", "c/d"}},
	{"class", []string{"[[:digit:]][[:upper:]]"},
		[]string{"1A", "d/9Z"}, []string{"1a", "AA"}},
	{"escaped wildcards", []string{`\*`, `a\?`, `\[x]`},
		[]string{"*", "a?", "[x]"}, []string{"b", "ab", "x"}},
	{"comment and blank lines", []string{"#foo", "", "   ", "# bar"},
		nil, []string{"#foo", "foo", "bar", "# bar"}},
	{"escaped hash", []string{`\#foo`},
		[]string{"#foo"}, []string{"foo"}},
	{"escaped ! (gitignore(5) \\!important!.txt)", []string{`\!important!.txt`},
		[]string{"!important!.txt"}, []string{"important!.txt"}},
	{"trailing spaces trimmed", []string{"foo  "},
		[]string{"foo"}, []string{"foo  ", "foo "}},
	{"escaped trailing space kept", []string{`foo\ `, `bar\  `},
		[]string{"foo ", "bar "}, []string{"foo", "bar", "bar  "}},
	{"trailing tab kept", []string{"foo\t"},
		[]string{"foo\t"}, []string{"foo"}},
	{"leading space kept", []string{" foo"},
		[]string{" foo"}, []string{"foo"}},
	{"negation: last match wins", []string{"*.html", "!foo.html"},
		[]string{"a.html", "d/b.html"}, []string{"foo.html", "d/foo.html"}},
	{"negation before exclusion loses", []string{"!foo.html", "*.html"},
		[]string{"foo.html", "a.html"}, nil},
	{"negation of directories only", []string{"build", "!build/"},
		[]string{"build", "a/build"}, []string{"build/", "a/build/"}},
	{"exclude all but foo/bar (gitignore(5))", []string{"/*", "!/foo", "/foo/*", "!/foo/bar"},
		[]string{"a", "a/", "foo/x", "foo/y/"}, []string{"foo", "foo/", "foo/bar", "foo/bar/", "foo/bar/z"}},
	{"negated escaped bang", []string{"*", `!\!x`},
		[]string{"x", "y"}, []string{"!x"}},
	{"lazarus --exclude examples", []string{"vendor/", "*.log", "/cache/**", "!keep.log"},
		[]string{"vendor/", "a/vendor/", "x.log", "a/b.log", "cache/x", "cache/a/b/"},
		[]string{"vendor", "keep.log", "a/keep.log", "cache/", "a/cache/x"}},
	{"no parent check in Match", []string{"build/", "!build/keep"},
		[]string{"build/"}, []string{"build/keep", "build/other"}},
}

func TestMatch(t *testing.T) {
	for _, tc := range gitignoreCases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(tc.patterns)
			if err != nil {
				t.Fatalf("New(%q): %v", tc.patterns, err)
			}
			for _, p := range tc.match {
				if !m.Match(splitDir(p)) {
					t.Errorf("%q does not exclude %q", tc.patterns, p)
				}
			}
			for _, p := range tc.noMatch {
				if m.Match(splitDir(p)) {
					t.Errorf("%q excludes %q", tc.patterns, p)
				}
			}
		})
	}
}

// splitDir turns "a/b/" into ("a/b", true) and "a/b" into ("a/b", false).
func splitDir(p string) (string, bool) {
	if s, ok := strings.CutSuffix(p, "/"); ok {
		return s, true
	}
	return p, false
}

// excludedInTree reports whether a walker that skips excluded directories
// leaves path out: path or one of its parents is excluded.
func excludedInTree(m *Matcher, path string, isDir bool) bool {
	for i := range len(path) {
		if path[i] == '/' && m.Match(path[:i], true) {
			return true
		}
	}
	return m.Match(path, isDir)
}

// TestParentExcluded checks the gitignore(5) rule that a file cannot be
// included again once a parent directory is excluded, as a walker sees it.
func TestParentExcluded(t *testing.T) {
	m, err := New([]string{"build/", "!build/keep", "logs/*", "!logs/keep/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"build/keep", false, true},   // build/ is excluded, so its content is too
		{"logs/a", false, true},       // logs/* excludes it
		{"logs/keep", true, false},    // negated: logs/ itself is not excluded
		{"logs/keep/x", false, false}, // reachable, and nothing excludes it
		{"src/build/keep", false, true},
	} {
		if got := excludedInTree(m, tc.path, tc.isDir); got != tc.want {
			t.Errorf("excludedInTree(%q, %v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
	}
}

func TestNilMatcher(t *testing.T) {
	var m *Matcher
	if m.Match("a", false) || m.Match("a", true) {
		t.Error("a nil Matcher excluded a path")
	}
	empty, err := New(nil)
	if err != nil || empty.Match("a", false) {
		t.Errorf("New(nil) = %v, %v; want a Matcher excluding nothing", empty, err)
	}
	all, _ := New([]string{"*"})
	if all.Match("", true) {
		t.Error(`"*" matched the empty path, which is not a path`)
	}
}

// TestNewErrors lists patterns New must refuse; the error must wrap
// ErrInvalidPattern, quote the pattern and give the reason.
func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		pattern, reason string
	}{
		{`foo\`, "backslash"},
		{`a[`, `"["`},
		{`a[b`, `"["`},
		{`[!]`, `"["`},
		{`[\]`, `"["`},
		{`[a\`, `"["`},
		{`[a-\`, `"["`},
		{`[[:alpha:]`, `"["`},
		{`[[:alpha`, `"["`},
		{`[[:foo:]]`, "[:foo:]"},
		{`[[::]]`, "[::]"},
		{"!", "empty"},
		{"/", "empty"},
		{"!/", "empty"},
		{"a//b", "empty path component"},
		{"//a", "empty path component"},
		{"a//", "empty path component"},
		{"./a", `"."`},
		{"a/../b", `".."`},
		{"..", `".."`},
		{"**//a", "empty path component"},
		{"a\x00b", "NUL"},
		{"a\nb", "newline"},
		{strings.Repeat("a", MaxPatternLen+1), "longer"},
	} {
		_, err := New([]string{"ok", tc.pattern})
		if !errors.Is(err, ErrInvalidPattern) {
			t.Errorf("New(%q): got %v, want ErrInvalidPattern", tc.pattern, err)
			continue
		}
		quoted := strconv.Quote(tc.pattern)
		if len(quoted) > 100 {
			quoted = quoted[:100]
		}
		if msg := err.Error(); !strings.Contains(msg, quoted) || !strings.Contains(msg, tc.reason) {
			t.Errorf("New(%q): error %q should quote the pattern and mention %q", tc.pattern, msg, tc.reason)
		}
	}
}

// TestNewAcceptsLimits checks the boundary of MaxPatternLen and that
// patterns git accepts literally are accepted.
func TestNewAcceptsLimits(t *testing.T) {
	for _, p := range []string{
		strings.Repeat("a", MaxPatternLen), "[]]", "[!]]", "[]-]", "[[:]]", "[[:alpha]", "a\\\\", "\\ ", "...", ".a", "a.",
		"[//y]", `a/\./b`, // sets and escapes are not checked for components
	} {
		if _, err := New([]string{p}); err != nil {
			t.Errorf("New(%q): %v", p, err)
		}
	}
}

func TestTrimTrailingSpaces(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"a", "a"},
		{"a  ", "a"},
		{"a b ", "a b"},
		{`a\ `, `a\ `},
		{`a\  `, `a\ `},
		{`a\\ `, `a\\`},
		{`a \`, `a \`}, // git keeps a line ending in a lone backslash as is
		{"a\t ", "a\t"},
	} {
		if got := trimTrailingSpaces(tc.in); got != tc.want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
