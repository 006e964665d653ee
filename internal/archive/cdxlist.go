package archive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// DefaultMaxPages bounds the pages one CDX or Common Crawl listing
// fetches: 200. The Internet Archive answers up to 150,000 rows a page, so
// a listing reaches DefaultMaxRows in four; Common Crawl pages hold about
// 15,000 lines.
const DefaultMaxPages = 200

// ErrPageLimit is the cause of a listing stopped at its page bound.
var ErrPageLimit = errors.New("archive: page limit reached")

// ListOptions tunes a CDX listing. The zero value is ready to use.
type ListOptions struct {
	// MatchType is exact, prefix, host or domain; defaults to prefix.
	MatchType string
	// From and To bound the capture times (inclusive, second precision);
	// zero values leave them open.
	From, To time.Time
	// Filters are sent as filter= parameters, verbatim, whatever the
	// dialect. nil defaults to DefaultCDXFilters or DefaultPywbFilters,
	// by the dialect spoken, and has the listing check every row itself
	// too (status 200 and an HTML or XHTML type, or a revisit record), so
	// that a server ignoring filters cannot feed it other captures; an
	// empty non-nil slice sends none and checks nothing.
	Filters []string
	// Collapse is sent as collapse= to a Wayback server; defaults to
	// "digest" ("-" sends none). pywb has no collapse.
	Collapse string
	// Limit is sent as limit=, the most rows of one answer. An answer of
	// exactly Limit rows that came without a resume key, and after none,
	// is taken as cut (pywb cuts without a word): its time range is
	// listed again in two halves (a range of one second with twice the
	// limit), skipping the rows it delivered, and so on until no answer
	// is cut or a bound is reached. 0 leaves it to a Wayback server and
	// sends DefaultPywbLimit to a pywb server.
	Limit int
	// Dialect is the server's query language; defaults to DialectAuto.
	Dialect Dialect
	// Replay is the raw-replay prefix of the captures (see ResolveCDX);
	// defaults to the one base implies.
	Replay string
	// Source names the captures' source; defaults to "wayback".
	Source string
	// MaxPages bounds the pages fetched; defaults to DefaultMaxPages.
	MaxPages int
	// MaxBytes bounds one answer; defaults to DefaultMaxBytes.
	MaxBytes int64
	// MaxRows bounds the captures delivered; defaults to DefaultMaxRows.
	MaxRows int
	// MaxListBytes bounds the bytes of all answers; defaults to
	// DefaultMaxListBytes.
	MaxListBytes int64
	// MaxFieldBytes bounds a kept field and a resume key; defaults to
	// DefaultMaxFieldBytes.
	MaxFieldBytes int
	// Budget, if set, is shared with other listings of the same source and
	// lowers MaxRows and MaxListBytes to what it has left; defaults to
	// none.
	Budget *Budget
}

// validate checks the options and fills defaults.
func (o ListOptions) validate() (ListOptions, limits, error) {
	switch o.MatchType {
	case "":
		o.MatchType = "prefix"
	case "exact", "prefix", "host", "domain":
	default:
		return o, limits{}, fmt.Errorf("archive: invalid match type %q", o.MatchType)
	}
	if o.Limit < 0 {
		return o, limits{}, fmt.Errorf("archive: negative page size")
	}
	if o.Dialect < DialectAuto || o.Dialect > DialectPywb {
		return o, limits{}, fmt.Errorf("archive: unknown dialect %v", o.Dialect)
	}
	lim, err := newLimits(o.MaxPages, o.MaxRows, o.MaxBytes, o.MaxListBytes, o.MaxFieldBytes, DefaultMaxPages)
	if err != nil {
		return o, limits{}, err
	}
	if !o.From.IsZero() && !o.To.IsZero() && o.To.Before(o.From) {
		return o, limits{}, fmt.Errorf("archive: to %v before from %v", o.To, o.From)
	}
	if o.Collapse == "" {
		o.Collapse = "digest"
	}
	if o.Source == "" {
		o.Source = "wayback"
	}
	return o, lim, nil
}

// List lists the captures of urlPattern (e.g. "example.org/*") in the
// CDX server at base, a Wayback base URL (e.g. "https://web.archive.org")
// or a CDX endpoint (e.g. "https://host/coll/cdx", see ResolveCDX), and
// calls fn for each capture in the server's order. It follows resume
// keys, and lists the time range of an answer cut at the limit again in
// halves (see ListOptions.Limit), skipping what the cut answer delivered.
// It stops at fn's first error and returns it. A non-200 answer is an
// *HTTPError. The listing stops with a *ListError, after delivering what
// it read, at a bound: pages, rows, bytes, a resume key seen before or
// longer than MaxFieldBytes, MaxEmptyPages pages in a row without a
// capture, or a cut answer whose rows are out of index order (its last
// row would not mark what it delivered).
func List(ctx context.Context, doer Doer, base, urlPattern string, opts ListOptions, fn func(Capture) error) error {
	o, lim, err := opts.validate()
	if err != nil {
		return err
	}
	srv, err := ResolveCDX(base, o.Replay)
	if err != nil {
		return err
	}
	l := &cdxListing{ctx: ctx, doer: doer, srv: srv, pattern: urlPattern, o: o, t: newTally(lim, o.Budget), fn: fn,
		dialect: srv.Dialect, settled: o.Dialect != DialectAuto}
	if l.settled {
		l.dialect = o.Dialect
	}
	if err := l.run(); err != nil && err != errStop {
		l.t.result()
		return err
	}
	return l.t.result()
}

// cdxListing is one CDX listing under way.
type cdxListing struct {
	ctx     context.Context
	doer    Doer
	srv     CDXServer
	pattern string
	o       ListOptions
	dialect Dialect // the dialect spoken
	settled bool    // the dialect was set, or an answer confirmed it
	t       *tally
	fn      func(Capture) error
}

// spanWork is one time range to list, the mark up to which an earlier
// answer delivered its rows, and the limit to send (0: the options').
type spanWork struct {
	span  span
	after mark
	limit int
}

// run lists the options' time range and, for each answer cut at the
// limit, narrower queries (see split), earliest first.
func (l *cdxListing) run() error {
	stack := []spanWork{{span: span{l.o.From, l.o.To}}}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cut, err := l.listSpan(w)
		if err != nil {
			return err
		}
		if cut != nil {
			more, err := l.split(w, cut)
			if err != nil {
				return err
			}
			stack = append(stack, more...)
		}
	}
	return nil
}

// listSpan lists one time range, following resume keys. It returns what
// the answer was when it may have been cut at the limit, else nil: a
// server that handed out a resume key says when there is more.
func (l *cdxListing) listSpan(w spanWork) (*pageStats, error) {
	seen := map[string]bool{}
	key := ""
	for empty := 0; ; {
		if l.t.pages >= l.t.lim.pages {
			return nil, l.t.stop(ErrPageLimit, "%d cdx pages", l.t.lim.pages)
		}
		rows := l.t.rows
		pg, err := l.page(w, key)
		switch {
		case err != nil:
			return nil, err
		case pg.next == "" && key == "":
			return l.cut(w, pg), nil
		case pg.next == "":
			return nil, nil
		case !l.t.nextKey(pg.next, seen):
			return nil, errStop
		}
		if empty = emptyRun(empty, l.t.rows == rows); empty >= MaxEmptyPages {
			return nil, l.t.stop(nil, "%d cdx pages in a row without captures", empty)
		}
		key = pg.next
	}
}

// emptyRun counts the pages in a row that delivered no capture.
func emptyRun(run int, empty bool) int {
	if empty {
		return run + 1
	}
	return 0
}

// nextKey reports whether the listing goes on with resume key k, which is
// not empty: k is not overlong and not seen before (recording it). A bad
// key stops the listing.
func (t *tally) nextKey(k string, seen map[string]bool) bool {
	switch {
	case len(k) > t.lim.fieldBytes:
		t.stop(ErrMalformed, "cdx resume key over %d bytes", t.lim.fieldBytes)
		return false
	case seen[k]:
		t.stop(ErrMalformed, "cdx resume key %.100q repeated", k)
		return false
	}
	seen[k] = true
	return true
}

// cdxAnswer is what one CDX answer held.
type cdxAnswer struct {
	next  string     // its resume key
	rows  int        // its rows, malformed ones included
	stats *pageStats // its rows' keys and times
}

// page lists one page. Until the dialect is settled, an answer of the
// other dialect's shape, or a 400 answer, makes it ask again, once, in
// the other dialect; an empty answer that the other dialect cannot
// better stays empty.
func (l *cdxListing) page(w spanWork, key string) (cdxAnswer, error) {
	pg, err := l.reread(w, key)
	if l.settled {
		return pg, err
	}
	l.settled = true
	var he *HTTPError
	if !errors.Is(err, errOtherShape) && !errors.Is(err, errEmptyAnswer) && !(errors.As(err, &he) && he.Status == http.StatusBadRequest) {
		return pg, err
	}
	if l.t.pages >= l.t.lim.pages {
		return cdxAnswer{}, l.t.stop(ErrPageLimit, "%d cdx pages", l.t.lim.pages)
	}
	first := l.dialect
	l.dialect = l.otherDialect()
	again, err2 := l.reread(w, key)
	if errors.Is(err, errEmptyAnswer) && err2 != nil && !errors.Is(err2, errStop) && l.t.stopped == "" {
		l.dialect = first // the first answer was empty: so is the listing
		return cdxAnswer{}, nil
	}
	return again, err2
}

// otherDialect is the dialect not spoken.
func (l *cdxListing) otherDialect() Dialect {
	if l.dialect == DialectPywb {
		return DialectWayback
	}
	return DialectPywb
}

// reread lists one page, asking again (up to maxPageReads times in all)
// when its answer breaks off (a truncated body, a reset, a stall): the
// captures an earlier read delivered are not delivered again.
func (l *cdxListing) reread(w spanWork, key string) (cdxAnswer, error) {
	skip := 0
	for read := 1; ; read++ {
		pg, passed, err := l.read(w, key, skip)
		if !errors.Is(err, errRead) || read == maxPageReads || l.ctx.Err() != nil {
			return pg, err
		}
		skip = max(skip, passed)
	}
}

// read fetches and reports one page, skipping its first skip captures,
// and returns what it held and the captures it read. At a bound it
// returns errStop.
func (l *cdxListing) read(w spanWork, key string, skip int) (cdxAnswer, int, error) {
	u := cdxQuery(l.srv, l.dialect, l.pattern, l.o, w.span, l.limit(w), key)
	l.t.pages++
	rc, _, err := Open(l.ctx, l.doer, u)
	if err != nil {
		return cdxAnswer{}, 0, err
	}
	defer rc.Close()
	body, sink := l.t.body(rc), l.t.sink(l.o.Source, l.srv.Replay, l.fn)
	sink.skip, sink.after, sink.fields = skip, w.after, textFields(l.dialect)
	sink.page = &pageStats{maxTimes: l.limit(w) + 1}
	if l.o.Filters == nil {
		sink.accept = htmlRow
	}
	br := bufio.NewReader(readErrs{body})
	next, err := l.scan(br, sink)
	pg := cdxAnswer{next: next, rows: sink.seen + sink.malformed, stats: sink.page}
	if errors.Is(err, errOtherShape) || errors.Is(err, errEmptyAnswer) {
		return pg, 0, err
	}
	return pg, sink.passed, l.t.pageEnd(u, body, sink, err)
}

// scan reads one answer; until the dialect is settled it first checks
// the answer's shape against it.
func (l *cdxListing) scan(br *bufio.Reader, sink *rowSink) (string, error) {
	if !l.settled {
		if err := checkShape(br, l.dialect); err != nil {
			return "", err
		}
	}
	return scanCDXFrom(br, sink)
}
