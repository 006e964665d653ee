package ignore

import (
	"fmt"
	"math/bits"
)

// byteSet is a set of bytes, one bit each.
type byteSet [4]uint64

// allBytes holds every byte.
var allBytes = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// single returns the set holding only c.
func single(c byte) byteSet {
	var s byteSet
	s.add(c)
	return s
}

func (s *byteSet) has(c byte) bool { return s[c/64]&(1<<(c%64)) != 0 }

func (s *byteSet) add(c byte) { s[c/64] |= 1 << (c % 64) }

// only returns the member of a set with exactly one.
func (s *byteSet) only() (byte, bool) {
	if bits.OnesCount64(s[0])+bits.OnesCount64(s[1])+bits.OnesCount64(s[2])+bits.OnesCount64(s[3]) != 1 {
		return 0, false
	}
	for i, w := range s {
		if w != 0 {
			return byte(i*64 + bits.TrailingZeros64(w)), true
		}
	}
	return 0, false
}

// addRange adds lo through hi inclusive; nothing if lo > hi.
func (s *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

func (s byteSet) without(c byte) byteSet {
	s[c/64] &^= 1 << (c % 64)
	return s
}

func (s byteSet) union(t byteSet) byteSet {
	for i := range s {
		s[i] |= t[i]
	}
	return s
}

func (s byteSet) complement() byteSet {
	for i := range s {
		s[i] = ^s[i]
	}
	return s
}

// parseSet parses the bracket expression of p starting with the "[" at i,
// following git's wildmatch exactly: a "]" right after "[" or "[!" (or
// "[^") is a member; "-" makes a range only between two members and not
// right before the closing "]"; a backslash escapes the next byte, also at
// the end of a range; "[:name:]" is a class, while "[:" without a matching
// ":]" is a literal "[". It returns the set and the index after "]".
func parseSet(p string, i int) (byteSet, int, error) {
	var set byteSet
	i++
	negated := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negated {
		i++
	}
	var prev byte
	hasPrev := false
	for first := true; ; first = false {
		if i >= len(p) {
			return byteSet{}, 0, errUnterminatedSet
		}
		if p[i] == ']' && !first {
			break
		}
		var err error
		if i, prev, hasPrev, err = setElem(p, i, &set, prev, hasPrev); err != nil {
			return byteSet{}, 0, err
		}
		i++
	}
	if negated {
		set = set.complement()
	}
	return set, i + 1, nil
}

// setElem adds the set element at p[i] (a byte, an escaped byte, a range
// from prev or a class) to set, and returns the index of its last byte and
// the byte a following "-" would start a range from.
func setElem(p string, i int, set *byteSet, prev byte, hasPrev bool) (int, byte, bool, error) {
	c := p[i]
	switch {
	case c == '\\':
		if i+1 >= len(p) {
			return 0, 0, false, errUnterminatedSet
		}
		set.add(p[i+1])
		return i + 1, p[i+1], true, nil
	case c == '-' && hasPrev && i+1 < len(p) && p[i+1] != ']':
		i++
		hi := p[i]
		if hi == '\\' {
			if i+1 >= len(p) {
				return 0, 0, false, errUnterminatedSet
			}
			i++
			hi = p[i]
		}
		set.addRange(prev, hi)
		return i, 0, false, nil
	case c == '[' && i+1 < len(p) && p[i+1] == ':':
		return setClass(p, i, set)
	}
	set.add(c)
	return i, c, true, nil
}

// setClass handles "[:" at p[i]: a "[:name:]" class, or a literal "[" if
// the next "]" is not preceded by a ":" that closes a name.
func setClass(p string, i int, set *byteSet) (int, byte, bool, error) {
	start := i + 2
	end := start
	for end < len(p) && p[end] != ']' {
		end++
	}
	if end == len(p) {
		return 0, 0, false, errUnterminatedSet
	}
	if end-start-1 < 0 || p[end-1] != ':' {
		set.add('[')
		return i, '[', true, nil
	}
	name := p[start : end-1]
	class, ok := classes[name]
	if !ok {
		return 0, 0, false, fmt.Errorf("has an unknown character class [:%s:]", name)
	}
	*set = set.union(class)
	return end, 0, false, nil
}

// classes are the POSIX character classes with git's ASCII definitions
// (git's own ctype table: no bytes >= 0x80, [:space:] without \v and \f).
var classes = map[string]byteSet{
	"alnum":  ranges("09AZaz"),
	"alpha":  ranges("AZaz"),
	"blank":  ranges("  \t\t"),
	"cntrl":  ranges("\x00\x1f\x7f\x7f"),
	"digit":  ranges("09"),
	"graph":  ranges("!~"),
	"lower":  ranges("az"),
	"print":  ranges(" ~"),
	"punct":  ranges("!/:@[`{~"),
	"space":  ranges("\t\n\r\r  "),
	"upper":  ranges("AZ"),
	"xdigit": ranges("09AFaf"),
}

// ranges returns the set of the inclusive ranges given as pairs of bytes.
func ranges(pairs string) byteSet {
	var s byteSet
	for i := 0; i+1 < len(pairs); i += 2 {
		s.addRange(pairs[i], pairs[i+1])
	}
	return s
}
