package site

import (
	"bytes"
	"strings"
)

// maxRobotsLine bounds one robots.txt line; bytes beyond it are ignored, as
// Google does (eight times the longest URL browsers accept).
const maxRobotsLine = 2083 * 8

// Robots is a parsed robots.txt (RFC 9309, with Google's tolerance of
// malformed files). The nil *Robots allows everything, like a missing file.
type Robots struct {
	groups []group
}

// group is one group of robots.txt lines: the user agents it applies to and
// its rules.
type group struct {
	agents []string // lower-case product tokens, "*" for the global group
	rules  []rule
}

// ParseRobots parses a robots.txt file. It never fails: lines it does not
// understand are ignored. Only the first MaxRobotsBytes are read, a leading
// UTF-8 byte order mark is skipped, lines end at CR, LF or CRLF, "#" starts
// a comment, and keys are matched case-insensitively by prefix, accepting
// Google's list of common misspellings ("useragent", "disalow", …). A key
// and value may be separated by whitespace instead of ":". Rules before the
// first user-agent line are ignored; a user-agent line after a rule or
// another line (sitemap, crawl-delay, …) starts a new group.
func ParseRobots(data []byte) *Robots {
	data = data[:min(len(data), MaxRobotsBytes)]
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := robotsParser{cur: -1}
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			i = len(data)
		}
		p.line(string(data[:min(i, maxRobotsLine)]))
		data = data[i:]
		switch {
		case bytes.HasPrefix(data, []byte("\r\n")):
			data = data[2:]
		case len(data) > 0:
			data = data[1:]
		}
	}
	return &Robots{groups: p.groups}
}

// robotsParser is the state of ParseRobots.
type robotsParser struct {
	groups  []group
	cur     int  // index of the group being read, or -1 before any
	sawRule bool // the current group has a line other than user-agent
}

// robotsKey is the kind of a robots.txt line.
type robotsKey int

const (
	keyOther robotsKey = iota
	keyUserAgent
	keyAllow
	keyDisallow
)

// line parses one line.
func (p *robotsParser) line(l string) {
	key, value, ok := splitRobotsLine(l)
	if !ok {
		return
	}
	switch robotsKeyOf(key) {
	case keyUserAgent:
		if p.cur < 0 || p.sawRule {
			p.groups = append(p.groups, group{})
			p.cur, p.sawRule = len(p.groups)-1, false
		}
		g := &p.groups[p.cur]
		g.agents = append(g.agents, agentToken(value))
	case keyAllow, keyDisallow:
		if p.cur < 0 {
			return
		}
		p.sawRule = true
		if r, ok := newRule(robotsKeyOf(key) == keyAllow, value); ok {
			g := &p.groups[p.cur]
			g.rules = append(g.rules, r)
		}
	default:
		p.sawRule = p.cur >= 0
	}
}

// splitRobotsLine returns the key and value of a line, without comment and
// surrounding whitespace. Without a ":" a line of exactly two words is a key
// and a value.
func splitRobotsLine(l string) (key, value string, ok bool) {
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	l = strings.TrimSpace(l)
	key, value, ok = strings.Cut(l, ":")
	if !ok {
		f := strings.Fields(l)
		if len(f) != 2 {
			return "", "", false
		}
		key, value = f[0], f[1]
	}
	key = strings.TrimSpace(key)
	return key, strings.TrimSpace(value), key != ""
}

// robotsKeyOf classifies a key as Google does: by case-insensitive prefix,
// with common misspellings.
func robotsKeyOf(key string) robotsKey {
	k := strings.ToLower(key)
	for _, p := range []string{"user-agent", "useragent", "user agent"} {
		if strings.HasPrefix(k, p) {
			return keyUserAgent
		}
	}
	if strings.HasPrefix(k, "allow") {
		return keyAllow
	}
	for _, p := range []string{"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"} {
		if strings.HasPrefix(k, p) {
			return keyDisallow
		}
	}
	return keyOther
}

// agentToken returns the product token of a user-agent value, lower case:
// "*" (also when followed by space and junk) or its leading token
// characters, so that "CCBot/2.0" is "ccbot". It may be empty, matching no
// agent.
func agentToken(v string) string {
	if v == "*" || strings.HasPrefix(v, "*") && len(v) > 1 && (v[1] == ' ' || v[1] == '\t') {
		return "*"
	}
	i := 0
	for i < len(v) && isTokenChar(v[i]) {
		i++
	}
	return strings.ToLower(v[:i])
}

// Allowed reports whether the rules of robots.txt let agent fetch the URL
// path (with its query, if any) p. The agent's rules are those of the groups
// with the longest user-agent token that is a case-insensitive substring of
// agent (the old robots.txt convention; a group for "ccbot" applies to
// "CCBot"), combined; if there is none, those of the "*" groups. The agent
// "*" uses the "*" groups only. Among the rules matching p, the longest
// pattern wins, and Allow wins a tie; no matching rule allows. "/robots.txt"
// is always allowed. p and the patterns are compared with their
// percent-encoding normalized.
func (r *Robots) Allowed(agent, p string) bool {
	if r == nil {
		return true
	}
	return allowedBy(r.rulesFor(agent), robotsPath(p))
}

// rulesFor returns the rules that apply to agent.
func (r *Robots) rulesFor(agent string) []rule {
	if r == nil {
		return nil
	}
	a := strings.ToLower(agent)
	best := -1
	for _, g := range r.groups {
		best = max(best, g.specificity(a))
	}
	var rules []rule
	for _, g := range r.groups {
		if best >= 0 && g.specificity(a) == best || best < 0 && g.global() {
			rules = append(rules, g.rules...)
		}
	}
	return rules
}

// specificity returns the length of the longest token of g that names agent
// a (lower case), or -1 if none does.
func (g *group) specificity(a string) int {
	n := -1
	for _, t := range g.agents {
		if t != "" && t != "*" && a != "*" && strings.Contains(a, t) {
			n = max(n, len(t))
		}
	}
	return n
}

// global reports whether g is a group for "*".
func (g *group) global() bool {
	for _, t := range g.agents {
		if t == "*" {
			return true
		}
	}
	return false
}

// allowedBy applies rules to the normalized path p.
func allowedBy(rules []rule, p string) bool {
	if p == "/robots.txt" {
		return true
	}
	best, allow := -1, true
	for i := range rules {
		r := &rules[i]
		if r.length < best || r.length == best && !r.allow || !r.matches(p) {
			continue
		}
		best, allow = r.length, r.allow
	}
	return allow
}

// robotsPath normalizes a URL path for matching: escapes normalized as in
// patterns, and "*" and "$", which are wildcards in patterns, escaped, so
// that a pattern's "%2A" matches a literal "*" (RFC 9309 §2.2.3).
func robotsPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = normalizeEscapes(p, "?")
	if strings.ContainsAny(p, "*$") {
		p = strings.NewReplacer("*", "%2A", "$", "%24").Replace(p)
	}
	return p
}
