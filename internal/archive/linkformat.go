package archive

import (
	"fmt"
	"strings"
)

// link is one entry of an application/link-format document (RFC 6690,
// the syntax of RFC 8288 Link headers): a target URI and its parameters.
type link struct {
	uri    string
	rel    []string          // the rel parameter split on white space, lower-cased
	params map[string]string // other parameters, names lower-cased
}

// hasRel reports whether l's relation list contains r.
func (l link) hasRel(r string) bool {
	for _, x := range l.rel {
		if x == r {
			return true
		}
	}
	return false
}

// linkScanner walks a link-format document. Line breaks and other white
// space may appear between any two tokens.
type linkScanner struct {
	s   string
	pos int
}

// eachLink parses a link-format document and calls fn for each link in
// document order, so only one link is held at a time. It stops at fn's
// first error and returns it. A link with a syntax error is skipped up to
// the next line that starts with '<' and counted in bad; a document with
// bad links and no good one is an error.
func eachLink(doc string, fn func(link) error) (bad int, err error) {
	sc := &linkScanner{s: doc}
	good, first := 0, error(nil)
	for {
		sc.skip(" \t\r\n,")
		if sc.pos >= len(sc.s) {
			if bad > 0 && good == 0 {
				return bad, first
			}
			return bad, nil
		}
		start := sc.pos
		l, err := sc.link()
		if err != nil {
			if bad++; first == nil {
				first = fmt.Errorf("%w: link-format at byte %d: %v", ErrMalformed, sc.pos, err)
			}
			sc.resync(start)
			continue
		}
		good++
		if err := fn(l); err != nil {
			return bad, err
		}
	}
}

// resync moves past a bad link that began at start: to the next line
// that starts with '<', or the end.
func (sc *linkScanner) resync(start int) {
	if i := strings.Index(sc.s[start:], "\n<"); i >= 0 {
		sc.pos = start + i + 1
		return
	}
	sc.pos = len(sc.s)
}

// skip advances over any bytes in set.
func (sc *linkScanner) skip(set string) {
	for sc.pos < len(sc.s) && strings.IndexByte(set, sc.s[sc.pos]) >= 0 {
		sc.pos++
	}
}

// link parses "<uri>" followed by ";"-separated parameters.
func (sc *linkScanner) link() (link, error) {
	if sc.s[sc.pos] != '<' {
		return link{}, fmt.Errorf("want '<', got %q", sc.s[sc.pos])
	}
	end := strings.IndexByte(sc.s[sc.pos:], '>')
	if end < 0 {
		return link{}, fmt.Errorf("unterminated '<'")
	}
	l := link{uri: strings.TrimSpace(sc.s[sc.pos+1 : sc.pos+end]), params: map[string]string{}}
	sc.pos += end + 1
	for {
		sc.skip(" \t\r\n")
		if sc.pos >= len(sc.s) || sc.s[sc.pos] == ',' {
			return l, nil
		}
		if sc.s[sc.pos] != ';' {
			return link{}, fmt.Errorf("want ';' or ',', got %q", sc.s[sc.pos])
		}
		sc.pos++
		if err := sc.param(&l); err != nil {
			return link{}, err
		}
	}
}

// param parses one "name[=value]" parameter into l.
func (sc *linkScanner) param(l *link) error {
	sc.skip(" \t\r\n")
	name := strings.ToLower(sc.token())
	if name == "" {
		return fmt.Errorf("empty parameter name")
	}
	sc.skip(" \t\r\n")
	value := ""
	if sc.pos < len(sc.s) && sc.s[sc.pos] == '=' {
		sc.pos++
		sc.skip(" \t\r\n")
		var err error
		if value, err = sc.value(); err != nil {
			return err
		}
	}
	if name == "rel" {
		l.rel = append(l.rel, strings.Fields(strings.ToLower(value))...)
	} else if _, dup := l.params[name]; !dup {
		l.params[name] = value // RFC 8288: later duplicates are ignored
	}
	return nil
}

// token reads an unquoted token up to a delimiter.
func (sc *linkScanner) token() string {
	start := sc.pos
	for sc.pos < len(sc.s) && strings.IndexByte(" \t\r\n;,=\"<>", sc.s[sc.pos]) < 0 {
		sc.pos++
	}
	return sc.s[start:sc.pos]
}

// value reads a quoted string (with backslash escapes) or a token.
func (sc *linkScanner) value() (string, error) {
	if sc.pos >= len(sc.s) || sc.s[sc.pos] != '"' {
		return sc.token(), nil
	}
	sc.pos++
	var b strings.Builder
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		sc.pos++
		switch {
		case c == '"':
			return b.String(), nil
		case c == '\\' && sc.pos < len(sc.s):
			b.WriteByte(sc.s[sc.pos])
			sc.pos++
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated quoted string")
}
