package ignore

import (
	"errors"
	"math/bits"
	"slices"
	"strings"
)

// A glob is one compiled wildcard pattern, matched against a whole string
// with git's wildmatch semantics under WM_PATHNAME ("*", "?" and sets do not
// match "/"; "**" next to slashes does).
//
// Literal patterns and "*literal" ones are compared directly; the others
// are run as a nondeterministic automaton whose states are positions in
// ops, so matching never backtracks.
type glob struct {
	kind globKind
	// prefix is the whole text for globLiteral; for globOps, the bytes
	// of the leading literal ops, which every match starts with.
	prefix string
	// suffix is the literal for globSuffix; for globOps, the bytes of the
	// trailing literal ops, which every match ends with.
	suffix string
	ops    []op
}

type globKind uint8

const (
	globLiteral globKind = iota // no wildcards: text == prefix
	globSuffix                  // "*" then a literal: text ends with suffix, no "/"
	globOps                     // anything else: run ops
)

// op consumes one byte of set, or with star any number of them. A fork
// consumes nothing: it starts the three ops of "**/" (fork, a star over all
// bytes, "/"), which may also match nothing at all, so the automaton can
// go straight past them.
type op struct {
	set  byteSet
	star bool
	fork bool
}

// stackWords bounds the state sets kept on the stack: patterns of up to
// 64*stackWords-1 ops match without allocating.
const stackWords = 4

var (
	errTrailingBackslash = errors.New("ends with an unescaped backslash")
	errUnterminatedSet   = errors.New(`has a "[" set without its closing "]"`)
)

// compileGlob compiles pattern p.
func compileGlob(p string) (glob, error) {
	if !strings.ContainsAny(p, `*?[\`) {
		return glob{kind: globLiteral, prefix: p}, nil
	}
	if p[0] == '*' && !strings.ContainsAny(p[1:], `*?[\/`) {
		return glob{kind: globSuffix, suffix: p[1:]}, nil
	}
	var ops []op
	for i := 0; i < len(p); {
		var o op
		var err error
		o, i, err = nextOp(p, i)
		if err != nil {
			return glob{}, err
		}
		if o.fork {
			ops = append(ops, o, op{set: allBytes, star: true}, op{set: single('/')})
			i++
			continue
		}
		ops = append(ops, o)
	}
	return glob{kind: globOps, ops: ops, prefix: literalRun(ops, 1), suffix: literalRun(ops, -1)}, nil
}

// literalRun returns the bytes of the literal ops (one byte, no star) at
// the start of ops (dir 1) or at the end (dir -1). The "/" ending a "**/"
// group is not counted: the group may match nothing.
func literalRun(ops []op, dir int) string {
	var run []byte
	i := 0
	if dir < 0 {
		i = len(ops) - 1
	}
	for ; i >= 0 && i < len(ops); i += dir {
		c, ok := ops[i].set.only()
		if !ok || ops[i].star || (i >= 2 && ops[i-2].fork) {
			break
		}
		run = append(run, c)
	}
	if dir < 0 {
		slices.Reverse(run)
	}
	return string(run)
}

// nextOp parses the element of p starting at i and returns it with the
// index after it. For a "**/" it returns a fork and stops at the "/".
func nextOp(p string, i int) (op, int, error) {
	switch p[i] {
	case '\\':
		if i+1 == len(p) {
			return op{}, 0, errTrailingBackslash
		}
		return op{set: single(p[i+1])}, i + 2, nil
	case '?':
		return op{set: allBytes.without('/')}, i + 1, nil
	case '[':
		set, next, err := parseSet(p, i)
		return op{set: set.without('/')}, next, err
	case '*':
		return starOp(p, i)
	}
	return op{set: single(p[i])}, i + 1, nil
}

// starOp parses the run of asterisks starting at i. Two or more of them
// with a "/" (or the pattern's edge) on both sides cross directories.
func starOp(p string, i int) (op, int, error) {
	j := i
	for j < len(p) && p[j] == '*' {
		j++
	}
	double := j-i >= 2 && (i == 0 || p[i-1] == '/')
	switch {
	case double && j == len(p):
		return op{set: allBytes, star: true}, j, nil
	case double && p[j] == '/':
		return op{fork: true}, j, nil
	case double && strings.HasPrefix(p[j:], `\/`):
		// Like git: an escaped slash makes "**" cross directories but
		// does not let it match nothing.
		return op{set: allBytes, star: true}, j, nil
	}
	return op{set: allBytes.without('/'), star: true}, j, nil
}

// match reports whether the whole of text matches.
func (g *glob) match(text string) bool {
	switch g.kind {
	case globLiteral:
		return text == g.prefix
	case globSuffix:
		return strings.HasSuffix(text, g.suffix) && !strings.Contains(text, "/")
	}
	if !strings.HasPrefix(text, g.prefix) || !strings.HasSuffix(text, g.suffix) {
		return false
	}
	n, start := len(g.ops), len(g.prefix)
	words := n/64 + 1
	var buf [2 * stackWords]uint64
	cur, next := buf[:stackWords], buf[stackWords:]
	if words > stackWords {
		cur, next = make([]uint64, words), make([]uint64, words)
	}
	cur, next = cur[:words], next[:words]
	cur[start/64] = 1 << (start % 64)
	g.closure(cur)
	for i := start; i < len(text); i++ {
		if !g.step(cur, next, text[i]) {
			return false
		}
		cur, next = next, cur
	}
	return cur[n/64]&(1<<(n%64)) != 0
}

// step computes in next the states reached from cur by consuming c, and
// reports whether there are any.
func (g *glob) step(cur, next []uint64, c byte) bool {
	clear(next)
	alive := false
	n := len(g.ops)
	for w, word := range cur {
		for word != 0 {
			s := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if s == n || !g.ops[s].set.has(c) {
				continue
			}
			if !g.ops[s].star {
				s++
			}
			next[s/64] |= 1 << (s % 64)
			alive = true
		}
	}
	if alive {
		g.closure(next)
	}
	return alive
}

// closure adds to states those reachable without consuming a byte: past a
// star (it may match nothing), into and past a "**/" group. Such moves only
// go forward, so one pass in order suffices.
func (g *glob) closure(states []uint64) {
	for s, o := range g.ops {
		if (!o.star && !o.fork) || states[s/64]&(1<<(s%64)) == 0 {
			continue
		}
		states[(s+1)/64] |= 1 << ((s + 1) % 64)
		if o.fork {
			states[(s+3)/64] |= 1 << ((s + 3) % 64)
		}
	}
}
