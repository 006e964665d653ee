package ignore

import (
	"errors"
	"fmt"
	"strings"
)

// MaxPatternLen is the longest pattern New accepts, in bytes.
const MaxPatternLen = 4096

// ErrInvalidPattern is wrapped by the errors New returns for a pattern it
// cannot use.
var ErrInvalidPattern = errors.New("invalid exclude pattern")

// Matcher decides whether paths are excluded by a list of gitignore-style
// patterns. A nil *Matcher excludes nothing. A Matcher is safe for
// concurrent use.
type Matcher struct {
	rules []rule
}

// rule is one compiled pattern.
type rule struct {
	negate   bool // the pattern started with "!"
	dirOnly  bool // the pattern ended with "/"
	basename bool // no "/" in the pattern: match the last path component
	g        glob
}

// New compiles patterns, in order, as the lines of one .gitignore file at
// the include root (see the package documentation). Blank patterns and
// comments are skipped. A pattern that cannot be used, or can never match,
// is an error wrapping ErrInvalidPattern that quotes it.
func New(patterns []string) (*Matcher, error) {
	m := &Matcher{}
	for _, p := range patterns {
		r, ok, err := parseRule(p)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %s", ErrInvalidPattern, p, err)
		}
		if ok {
			m.rules = append(m.rules, r)
		}
	}
	return m, nil
}

// Match reports whether path is excluded on its own: the last pattern
// matching it is not a negation. path is slash-separated, relative to the
// include root and clean (no leading or trailing "/", no "." or ".."
// components); isDir says whether it names a directory. Parent directories
// are not consulted: callers skip the subtree of an excluded directory.
func (m *Matcher) Match(path string, isDir bool) bool {
	if m == nil || path == "" {
		return false
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	for i := len(m.rules) - 1; i >= 0; i-- {
		r := &m.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		text := path
		if r.basename {
			text = base
		}
		if r.g.match(text) {
			return !r.negate
		}
	}
	return false
}

// parseRule turns one pattern line into a rule; ok is false for blank
// lines and comments.
func parseRule(line string) (r rule, ok bool, err error) {
	switch {
	case len(line) > MaxPatternLen:
		return rule{}, false, fmt.Errorf("longer than %d bytes", MaxPatternLen)
	case strings.ContainsAny(line, "\x00\n"):
		return rule{}, false, errors.New("contains a NUL or newline")
	case strings.HasPrefix(line, "#"):
		return rule{}, false, nil
	}
	body := trimTrailingSpaces(line)
	if body == "" {
		return rule{}, false, nil
	}
	if rest, found := strings.CutPrefix(body, "!"); found {
		r.negate, body = true, rest
	}
	if rest, found := strings.CutSuffix(body, "/"); found {
		r.dirOnly, body = true, rest
	}
	r.basename = !strings.Contains(body, "/")
	body = strings.TrimPrefix(body, "/")
	if err := checkComponents(body); err != nil {
		return rule{}, false, err
	}
	r.g, err = compileGlob(body)
	return r, err == nil, err
}

// trimTrailingSpaces removes trailing spaces that are not escaped by a
// backslash, as git does (tabs are kept).
func trimTrailingSpaces(s string) string {
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end == len(s) {
				end = i
			}
			continue
		case '\\':
			i++
		}
		end = len(s)
	}
	return s[:end]
}

// checkComponents rejects patterns that can never match a clean relative
// path: empty ones and those with empty, "." or ".." components. Only
// patterns without sets and escapes are checked for components: in those,
// every "/" is a literal one.
func checkComponents(body string) error {
	if body == "" {
		return errors.New(`empty once "!" and "/" are removed`)
	}
	if strings.ContainsAny(body, `[\`) {
		return nil
	}
	for c := range strings.SplitSeq(body, "/") {
		switch c {
		case "":
			return errors.New(`has an empty path component ("//")`)
		case ".", "..":
			return fmt.Errorf("has a %q component, which paths never have", c)
		}
	}
	return nil
}
