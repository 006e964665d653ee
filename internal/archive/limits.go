package archive

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Listing bounds. A hostile or broken archive must not make a listing use
// unbounded memory or time; real archives stay well inside them. When a
// bound is reached the listing stops, keeps what it delivered and returns
// a *ListError saying so.
const (
	// DefaultMaxRows bounds the captures one listing delivers: 500,000,
	// over three full Internet Archive answers (150,000 rows each). A
	// large site has 100,000 and more HTML captures.
	DefaultMaxRows = 500_000
	// DefaultMaxListBytes bounds the answer bytes one listing reads, all
	// pages together: 128 MiB, about 650,000 IA CDX rows of ~200 bytes.
	DefaultMaxListBytes = 128 << 20
	// DefaultMaxFieldBytes bounds one kept field of a row (a URL, a
	// digest, a URI-M) and a resume key: 8 KiB, more than any URL archives
	// and browsers handle in practice. Rows with a longer field are
	// dropped and counted.
	DefaultMaxFieldBytes = 8 << 10
	// maxPageReads bounds the reads of one listing page whose answer
	// broke off (truncated, reset, stalled).
	maxPageReads = 3
	// MaxEmptyPages ends a CDX listing after this many pages in a row
	// that deliver no capture while still handing out resume keys.
	MaxEmptyPages = 10
	// DefaultMaxCollInfoBytes bounds collinfo.json: 1 MiB; the real one
	// lists 100 and more crawls in about 40 KB.
	DefaultMaxCollInfoBytes = 1 << 20
)

var (
	// ErrTruncated marks a listing stopped at one of its bounds; the
	// captures delivered before are valid.
	ErrTruncated = errors.New("archive: listing truncated")
	// ErrForeignHost marks links that an archive answer pointed to
	// another host and that were not followed.
	ErrForeignHost = errors.New("archive: link to another host")
)

// ListError reports a listing that did not deliver everything the archive
// offered: it stopped at a bound, dropped rows with overlong fields or of
// the wrong shape, or left out links to other hosts. The captures delivered before it are
// valid. It wraps ErrTruncated when a bound stopped the listing,
// ErrForeignHost when links were left out, and Err.
type ListError struct {
	Rows       int64    // captures delivered
	Bytes      int64    // answer bytes read
	Stopped    string   // the bound that stopped the listing, e.g. "row limit 500000"; empty if none did
	Dropped    int      // rows dropped for a field over FieldLimit bytes
	FieldLimit int      // the field bound in force
	Malformed  int      // rows or links dropped for their shape (a CDX row's cells, a TimeMap link's syntax)
	Foreign    int      // links to other hosts not followed
	Hosts      []string // the first few of those hosts
	Err        error    // the cause: ErrPageLimit, ErrTooLarge, ErrMalformed; may be nil
}

// Error implements error.
func (e *ListError) Error() string {
	var parts []string
	if e.Stopped != "" {
		parts = append(parts, fmt.Sprintf("listing truncated at %d rows, %d bytes (%s)", e.Rows, e.Bytes, e.Stopped))
	}
	if e.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d rows dropped for a field over %d bytes", e.Dropped, e.FieldLimit))
	}
	if e.Malformed > 0 {
		parts = append(parts, fmt.Sprintf("%d malformed rows or links dropped", e.Malformed))
	}
	if e.Foreign > 0 {
		parts = append(parts, fmt.Sprintf("%d links to other hosts not followed (%s)", e.Foreign, strings.Join(e.Hosts, ", ")))
	}
	return "archive: " + strings.Join(parts, "; ")
}

// Unwrap returns the sentinels and the cause.
func (e *ListError) Unwrap() []error {
	var errs []error
	if e.Stopped != "" {
		errs = append(errs, ErrTruncated)
	}
	if e.Foreign > 0 {
		errs = append(errs, ErrForeignHost)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// Budget is a row and byte allowance shared by several listings of one
// source (the crawls of Common Crawl, the pages of a Memento source), so
// that together they stay within one listing's bounds. Each listing takes
// what it used off the budget. A Budget is not safe for concurrent use.
type Budget struct {
	Rows  int64 // captures still allowed
	Bytes int64 // answer bytes still allowed
}

// NewBudget returns a Budget of DefaultMaxRows rows and
// DefaultMaxListBytes bytes.
func NewBudget() *Budget {
	return &Budget{Rows: DefaultMaxRows, Bytes: DefaultMaxListBytes}
}

// limits are the resolved bounds of one listing.
type limits struct {
	pages       int   // pages fetched
	rows        int64 // captures delivered
	answerBytes int64 // bytes of one answer
	listBytes   int64 // bytes of all answers
	fieldBytes  int   // bytes of one kept field
}

// newLimits checks bounds given as options (0 = default) and fills the
// defaults; defPages is the listing kind's default page bound.
func newLimits(pages, rows int, answer, list int64, field, defPages int) (limits, error) {
	if pages < 0 || rows < 0 || answer < 0 || list < 0 || field < 0 {
		return limits{}, fmt.Errorf("archive: negative page, row, byte or field bound")
	}
	l := limits{pages: pages, rows: int64(rows), answerBytes: answer, listBytes: list, fieldBytes: field}
	l.pages = orDefault(l.pages, defPages)
	l.rows = orDefault(l.rows, DefaultMaxRows)
	l.answerBytes = orDefault(l.answerBytes, DefaultMaxBytes)
	l.listBytes = orDefault(l.listBytes, DefaultMaxListBytes)
	l.fieldBytes = orDefault(l.fieldBytes, DefaultMaxFieldBytes)
	return l, nil
}

// orDefault returns v, or def when v is zero.
func orDefault[T int | int64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// errStop ends a listing at a bound the tally recorded.
var errStop = errors.New("archive: listing bound reached")

// maxForeignHosts bounds the foreign hosts a ListError names.
const maxForeignHosts = 5

// tally counts what one listing read and delivered against its limits.
type tally struct {
	lim     limits
	budget  *Budget
	rows    int64
	bytes   int64
	pages   int
	dropped int
	badRows int // rows or links dropped for their shape
	foreign int
	hosts   []string
	stopped string
	cause   error
}

// newTally starts counting a listing; a non-nil budget lowers the row and
// byte bounds to what it has left.
func newTally(lim limits, b *Budget) *tally {
	if b != nil {
		lim.rows = max(0, min(lim.rows, b.Rows))
		lim.listBytes = max(0, min(lim.listBytes, b.Bytes))
	}
	return &tally{lim: lim, budget: b}
}

// stop records the bound that ends the listing and returns errStop.
func (t *tally) stop(cause error, format string, args ...any) error {
	if t.stopped == "" {
		t.stopped, t.cause = fmt.Sprintf(format, args...), cause
	}
	return errStop
}

// deliver hands c to fn unless the row bound is reached.
func (t *tally) deliver(c Capture, fn func(Capture) error) error {
	if t.rows >= t.lim.rows {
		return t.stop(nil, "row limit %d", t.lim.rows)
	}
	t.rows++
	return fn(c)
}

// sink returns a rowSink that delivers the captures of one answer to fn
// through the tally, with Source set and Replay under the prefix replay.
func (t *tally) sink(source, replay string, fn func(Capture) error) *rowSink {
	s := &rowSink{replay: replay, fieldBytes: t.lim.fieldBytes}
	s.emit = func(c Capture) error {
		if s.passed++; s.passed <= s.skip {
			return nil // delivered by an earlier read of the page
		}
		c.Source = source
		err := t.deliver(c, fn)
		if err != nil && err != errStop {
			s.callerErr = err
		}
		return err
	}
	return s
}

// pageEnd interprets how reading the answer at u ended: the caller's
// error, errStop at a bound (the byte bound included), a read or parse
// error naming u, or nil.
func (t *tally) pageEnd(u string, body *boundedReader, s *rowSink, err error) error {
	t.dropped += s.dropped
	t.badRows += s.malformed
	switch {
	case s.callerErr != nil:
		return s.callerErr
	case err == errStop:
		return errStop
	case body.hit:
		return t.stop(ErrTooLarge, "%s", body.bound)
	case err != nil:
		return fmt.Errorf("archive: %s: %w", u, err)
	}
	return nil
}

// fits reports whether s is within the field bound, counting a dropped
// row if not.
func (t *tally) fits(s ...string) bool {
	for _, v := range s {
		if len(v) > t.lim.fieldBytes {
			t.dropped++
			return false
		}
	}
	return true
}

// foreignLink counts a link to another host that is not followed.
func (t *tally) foreignLink(host string) {
	t.foreign++
	if len(t.hosts) < maxForeignHosts && !contains(t.hosts, host) {
		t.hosts = append(t.hosts, host)
	}
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// result ends the listing: it takes what was used off the budget and
// returns a *ListError if anything was left out, else nil.
func (t *tally) result() error {
	if t.budget != nil {
		t.budget.Rows -= t.rows
		t.budget.Bytes -= t.bytes
	}
	if t.stopped == "" && t.dropped == 0 && t.badRows == 0 && t.foreign == 0 {
		return nil
	}
	return &ListError{Rows: t.rows, Bytes: t.bytes, Stopped: t.stopped, Dropped: t.dropped,
		FieldLimit: t.lim.fieldBytes, Malformed: t.badRows, Foreign: t.foreign, Hosts: t.hosts, Err: t.cause}
}

// body bounds one answer by the answer and listing byte limits, counting
// what it reads into the tally.
func (t *tally) body(r io.Reader) *boundedReader {
	left := min(t.lim.answerBytes, t.lim.listBytes-t.bytes)
	b := &boundedReader{r: r, left: max(0, left), n: &t.bytes}
	if left < t.lim.answerBytes {
		b.bound = fmt.Sprintf("listing over %d bytes", t.lim.listBytes)
	} else {
		b.bound = fmt.Sprintf("answer over %d bytes", t.lim.answerBytes)
	}
	return b
}

// boundedReader reads at most left bytes of r; if r has more, it fails
// with errOverBound and sets hit.
type boundedReader struct {
	r     io.Reader
	left  int64
	n     *int64 // counter of bytes read
	bound string // what the bound is, for the report
	hit   bool
}

// errOverBound is returned by a boundedReader whose input goes on.
var errOverBound = errors.New("archive: answer over byte bound")

// Read implements io.Reader.
func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.probe()
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	*b.n += int64(n)
	return n, err
}

// probe tells the end of the input (io.EOF) from more input than allowed.
func (b *boundedReader) probe() error {
	var one [1]byte
	for range 100 {
		n, err := b.r.Read(one[:])
		if n > 0 {
			b.hit = true
			return errOverBound
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}
