package ignore

import (
	"errors"
	"strings"
	"testing"
)

// This file is a direct, independent port of git's matching code, used as
// the oracle of FuzzMatch: dir.c (parse_path_pattern, match_basename,
// match_pathname, last_matching_pattern_from_list) and wildmatch.c
// (dowild) with WM_PATHNAME. It keeps git's structure, including its
// backtracking, which is exponential on patterns like "a*a*a*a*b" (real
// git hangs on them too), so it runs on a step budget. Deliberate difference:
// an anchored pattern is matched whole, not split at its first wildcard
// (see "Departures from git" in doc.go).

// Results of refWild, as in wildmatch.c.
const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// refBudget is the number of refWild calls refExcluded allows.
const refBudget = 200000

// errRefBudget is panicked by refWild when the budget is spent.
var errRefBudget = errors.New("reference matcher out of steps")

// ref is the state of one reference match: its remaining steps.
type ref struct{ steps int }

// refExcluded reports whether the last of lines matching path (on its own)
// is not negated; ok is false if the reference ran out of steps.
func refExcluded(lines []string, path string, isDir bool) (excluded, ok bool) {
	defer func() {
		if e := recover(); e != nil {
			if e != errRefBudget {
				panic(e)
			}
			excluded, ok = false, false
		}
	}()
	r := &ref{steps: refBudget}
	return r.excluded(lines, path, isDir), true
}

func (r *ref) excluded(lines []string, path string, isDir bool) bool {
	base := path[strings.LastIndexByte(path, '/')+1:]
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if line == "" || line[0] == '#' {
			continue
		}
		p := refTrim(line)
		negative := strings.HasPrefix(p, "!")
		if negative {
			p = p[1:]
		}
		mustBeDir := strings.HasSuffix(p, "/")
		if mustBeDir {
			p = p[:len(p)-1]
		}
		if mustBeDir && !isDir {
			continue
		}
		var matched bool
		if !strings.Contains(p, "/") {
			// git matches basenames without WM_PATHNAME; a basename has
			// no "/", so the result is the same.
			matched = r.wild(p, base) == wmMatch
		} else {
			matched = r.wild(strings.TrimPrefix(p, "/"), path) == wmMatch
		}
		if matched {
			return !negative
		}
	}
	return false
}

// refTrim is git's trim_trailing_spaces.
func refTrim(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
			continue
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
		}
		lastSpace = -1
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// at returns p[i], or 0 past the end like a C string.
func at(p string, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

// refWild matches p against text with a fresh budget.
func refWild(p, text string) int {
	return (&ref{steps: refBudget}).wild(p, text)
}

// wild is wildmatch.c's dowild with WM_PATHNAME.
func (r *ref) wild(p, text string) int {
	if r.steps--; r.steps < 0 {
		panic(errRefBudget)
	}
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc, tc := p[pi], at(text, ti)
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			pi++
			if at(p, pi) != tc {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			res, next, done := r.star(p, pi, text, ti)
			if done {
				return res
			}
			ti = next // the "/" at p[pi] and text[ti] is consumed by the loop
			pi = strings.IndexByte(p[pi:], '/') + pi
		case '[':
			res, next := refClass(p, pi, tc)
			if res != wmMatch {
				return res
			}
			pi = next
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star handles the "*" at p[pi] against text[ti:]. Unless done, the star
// was a single one followed by "/", and the caller continues with the "/"
// of the pattern against text[next], which is a "/".
func (r *ref) star(p string, pi int, text string, ti int) (res, next int, done bool) {
	matchSlash := false
	pi++
	if at(p, pi) == '*' {
		prev := pi - 2
		for at(p, pi) == '*' {
			pi++
		}
		if (prev < 0 || p[prev] == '/') &&
			(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')) {
			if at(p, pi) == '/' && r.wild(p[pi+1:], text[ti:]) == wmMatch {
				return wmMatch, 0, true
			}
			matchSlash = true
		}
	}
	if pi == len(p) {
		if !matchSlash && strings.Contains(text[ti:], "/") {
			return wmNoMatch, 0, true
		}
		return wmMatch, 0, true
	}
	if !matchSlash && p[pi] == '/' {
		slash := strings.IndexByte(text[ti:], '/')
		if slash < 0 {
			return wmNoMatch, 0, true
		}
		return 0, ti + slash, false
	}
	return r.starLoop(p[pi:], text, ti, matchSlash), 0, true
}

// starLoop tries the rest of the pattern p at every position of text
// from ti on, as the loop at the end of dowild's '*' case.
func (r *ref) starLoop(p, text string, ti int, matchSlash bool) int {
	for ti < len(text) {
		tc := text[ti]
		if !strings.ContainsRune(`*?[\`, rune(p[0])) {
			for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != p[0] {
				ti++
			}
			if at(text, ti) != p[0] {
				return wmNoMatch
			}
			tc = text[ti]
		}
		if m := r.wild(p, text[ti:]); m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m
			}
		} else if !matchSlash && tc == '/' {
			return wmAbortToStarStar
		}
		ti++
	}
	return wmAbortAll
}

// refClass matches the bracket expression at p[pi] against tc and returns
// wmMatch with the index of its "]", or why it failed.
func refClass(p string, pi int, tc byte) (int, int) {
	pi++
	pc := at(p, pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return wmAbortAll, 0
		}
		switch {
		case pc == '\\':
			pi++
			if pc = at(p, pi); pc == 0 {
				return wmAbortAll, 0
			}
			matched = matched || tc == pc
		case pc == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
			pi++
			pc = at(p, pi)
			if pc == '\\' {
				pi++
				if pc = at(p, pi); pc == 0 {
					return wmAbortAll, 0
				}
			}
			matched = matched || (tc <= pc && tc >= prev)
			pc = 0
		case pc == '[' && at(p, pi+1) == ':':
			pi += 2
			s := pi
			for at(p, pi) != 0 && p[pi] != ']' {
				pi++
			}
			if at(p, pi) == 0 {
				return wmAbortAll, 0
			}
			if i := pi - s - 1; i < 0 || p[pi-1] != ':' {
				pi = s - 2
				pc = '['
				matched = matched || tc == pc
			} else {
				in, ok := refNamedClass(p[s:s+i], tc)
				if !ok {
					return wmAbortAll, 0
				}
				matched = matched || in
				pc = 0
			}
		default:
			matched = matched || tc == pc
		}
		prev = pc
		pi++
		if pc = at(p, pi); pc == ']' {
			break
		}
	}
	if matched == negated || tc == '/' {
		return wmNoMatch, 0
	}
	return wmMatch, pi
}

// refNamedClass reports whether c is in the POSIX class name, written the
// way git's ctype macros define them.
func refNamedClass(name string, c byte) (in, ok bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isSpace := c == ' ' || c == '\t' || c == '\n' || c == '\r'
	isPrint := c >= 0x20 && c <= 0x7e
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && !isSpace, true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && !isSpace && !isUpper && !isLower && !isDigit, true
	case "space":
		return isSpace, true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c|0x20 >= 'a' && c|0x20 <= 'f'), true
	}
	return false, false
}

// TestReference checks the oracle itself against git's wildmatch cases
// and the gitignore cases.
func TestReference(t *testing.T) {
	for _, tc := range wildmatchCases {
		if got := refWild(tc.pattern, tc.text) == wmMatch; got != (tc.want == yes) {
			t.Errorf("refWild(%q, %q) matched %v, want %v", tc.pattern, tc.text, got, tc.want == yes)
		}
	}
	for _, tc := range gitignoreCases {
		for _, p := range tc.match {
			if path, isDir := splitDir(p); !must(refExcluded(tc.patterns, path, isDir)) {
				t.Errorf("refExcluded(%q, %q) = false", tc.patterns, p)
			}
		}
		for _, p := range tc.noMatch {
			if path, isDir := splitDir(p); must(refExcluded(tc.patterns, path, isDir)) {
				t.Errorf("refExcluded(%q, %q) = true", tc.patterns, p)
			}
		}
	}
}

// must returns the result of a reference match that may not run out of
// steps.
func must(excluded, ok bool) bool {
	if !ok {
		panic("reference matcher out of steps on a test case")
	}
	return excluded
}
