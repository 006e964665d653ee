package archive

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"time"
)

// mark is a place in a CDX server's index order: the rows whose key
// ("urlkey timestamp") sorts before key, and the first n rows with key.
type mark struct {
	key string
	n   int
}

// rowKey is a row's place in index order: "urlkey timestamp", as the
// lines of a CDX or CDXJ index sort. It reports false when the row lacks
// either field.
func rowKey(m map[string]string) (string, bool) {
	u, t := m["urlkey"], m["timestamp"]
	return u + " " + t, u != "" && t != ""
}

// pageStats is what the rows of one answer were, for narrowing a query
// whose answer was cut at the limit.
type pageStats struct {
	last      mark    // the last row's key, and how many rows had it
	unordered bool    // a row lacked a key or came before the row preceding it
	times     []int64 // the rows' capture times (Unix seconds), at most maxTimes
	maxTimes  int
}

// note records one row.
func (p *pageStats) note(m map[string]string) {
	k, ok := rowKey(m)
	switch {
	case !ok || k < p.last.key:
		p.unordered = true
	case k == p.last.key:
		p.last.n++
	default:
		p.last = mark{key: k, n: 1}
	}
	if len(p.times) < p.maxTimes {
		if t, err := ParseTimestamp(m["timestamp"]); err == nil {
			p.times = append(p.times, t.Unix())
		}
	}
}

// median is the middle of the rows' capture times, ok false when there
// were none.
func (p *pageStats) median() (time.Time, bool) {
	if len(p.times) == 0 {
		return time.Time{}, false
	}
	ts := slices.Clone(p.times)
	slices.Sort(ts)
	return time.Unix(ts[len(ts)/2], 0).UTC(), true
}

// cut returns the answer's stats when it holds exactly the limit sent:
// the server may have cut it there without a word.
func (l *cdxListing) cut(w spanWork, pg cdxAnswer) *pageStats {
	if n := l.limit(w); n > 0 && pg.rows == n {
		return pg.stats
	}
	return nil
}

// limit is the limit= sent for w, 0 for none.
func (l *cdxListing) limit(w spanWork) int {
	if w.limit > 0 {
		return w.limit
	}
	return l.o.limit(l.dialect)
}

// split narrows w, whose answer p was cut: it halves the time range at
// the median of the answer's capture times, or asks a range of one
// second again with twice the limit. The narrower queries skip the rows
// up to the answer's last: they hold a subset of the range's captures in
// the same order, so those rows were in the cut answer. It stops the
// listing when the answer is not in index order (its last row would not
// mark what it delivered).
func (l *cdxListing) split(w spanWork, p *pageStats) ([]spanWork, error) {
	n := l.limit(w)
	if p.unordered {
		return nil, l.t.stop(nil, "an answer cut at %d rows is not in index order", n)
	}
	after := p.last
	if after.key < w.after.key || after.key == w.after.key && after.n < w.after.n {
		after = w.after
	}
	lo, hi := w.span.from, w.span.to
	if lo.IsZero() {
		lo = earliestCapture
	}
	if hi.IsZero() {
		hi = nowFunc().Add(24 * time.Hour).Truncate(time.Second)
	}
	if !lo.Before(hi) {
		return []spanWork{{span: span{lo, hi}, after: after, limit: 2 * n}}, nil
	}
	mid, ok := p.median()
	if !ok || mid.Before(lo) || !mid.Before(hi) {
		mid = lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
	}
	return []spanWork{{span: span{mid.Add(time.Second), hi}, after: after, limit: w.limit},
		{span: span{lo, mid}, after: after, limit: w.limit}}, nil
}

// Errors of an answer whose shape is not the dialect's spoken.
var (
	// errOtherShape is an answer in the other dialect's shape.
	errOtherShape = errors.New("archive: cdx answer of the other dialect")
	// errEmptyAnswer is an empty answer to a Wayback query: the Wayback
	// answers "[]" when it has no capture, pywb nothing.
	errEmptyAnswer = errors.New("archive: empty cdx answer")
)

// checkShape looks at the start of an answer to a query in dialect d,
// without consuming it: a JSON array is the Wayback's, NDJSON and cdxj
// lines pywb's, and an empty answer not the Wayback's. Other text fits
// either.
func checkShape(br *bufio.Reader, d Dialect) error {
	first, err := firstNonSpace(br)
	switch {
	case err == io.EOF && d == DialectWayback:
		return errEmptyAnswer
	case err != nil:
		return nil // scanning says what it is
	case first == '[' && d == DialectPywb:
		return errOtherShape
	case (first == '{' || cdxjStart(br)) && d == DialectWayback:
		return errOtherShape
	}
	return nil
}

// cdxjStart reports whether the buffered answer starts with a cdxj line
// ("urlkey timestamp {").
func cdxjStart(br *bufio.Reader) bool {
	buf, _ := br.Peek(br.Size())
	line, _, _ := bytes.Cut(bytes.TrimLeft(buf, " \t\r\n"), []byte("\n"))
	f := bytes.SplitN(line, []byte(" "), 3)
	return len(f) == 3 && bytes.HasPrefix(bytes.TrimSpace(f[2]), []byte("{"))
}
