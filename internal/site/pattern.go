package site

import "strings"

// rule is one Allow or Disallow line.
type rule struct {
	allow    bool
	length   int      // octets of the normalized pattern: its priority
	parts    []string // the literal pieces between "*" wildcards
	anchored bool     // the pattern ends in "$"
}

// newRule compiles an Allow or Disallow pattern, or returns false for an
// empty pattern, which matches nothing. Escapes are normalized as in paths;
// "*" matches any sequence of bytes and a final "$" anchors the pattern at
// the end of the path. A pattern that starts with neither "/" nor "*" can
// match no path, as for Google.
func newRule(allow bool, pattern string) (rule, bool) {
	if pattern == "" {
		return rule{}, false
	}
	pattern = normalizeEscapes(pattern, "?")
	r := rule{allow: allow, length: len(pattern)}
	if strings.HasSuffix(pattern, "$") {
		r.anchored, pattern = true, pattern[:len(pattern)-1]
	}
	// A "$" before the end is a literal, escaped as in paths.
	pattern = strings.ReplaceAll(pattern, "$", "%24")
	r.parts = strings.Split(pattern, "*")
	return r, true
}

// matches reports whether the rule matches the normalized path p: whether
// the pattern matches a prefix of p, or all of p when anchored. The
// literal pieces are matched leftmost-first, which is exact for patterns
// whose only wildcard is "*" and takes time linear in len(p) per piece.
func (r *rule) matches(p string) bool {
	first, last := r.parts[0], len(r.parts)-1
	if !strings.HasPrefix(p, first) {
		return false
	}
	rest := p[len(first):]
	if last == 0 {
		return !r.anchored || rest == ""
	}
	for _, s := range r.parts[1:last] {
		i := strings.Index(rest, s)
		if i < 0 {
			return false
		}
		rest = rest[i+len(s):]
	}
	if r.anchored {
		return strings.HasSuffix(rest, r.parts[last])
	}
	return strings.Contains(rest, r.parts[last])
}
