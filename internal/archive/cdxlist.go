package archive

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// cdxFieldList is the fl= parameter List sends.
const cdxFieldList = "urlkey,timestamp,original,mimetype,statuscode,digest,length"

// DefaultMaxPages bounds the pages one CDX or Common Crawl listing
// fetches: 200. The Internet Archive answers up to 150,000 rows a page, so
// a listing reaches DefaultMaxRows in four; Common Crawl pages hold about
// 15,000 lines.
const DefaultMaxPages = 200

// ErrPageLimit is the cause of a listing stopped at its page bound.
var ErrPageLimit = errors.New("archive: page limit reached")

// DefaultCDXFilters are the filters List sends when ListOptions.Filters is
// nil: only successful HTML and XHTML captures can carry blocks (inject
// writes blocks into .xhtml pages too, served as application/xhtml+xml).
// A filter's value is a regular expression matched against the whole
// field, as the Wayback CDX server and pywb match it.
var DefaultCDXFilters = []string{"statuscode:200", `mimetype:text/html|application/xhtml\+xml`}

// ListOptions tunes a CDX listing. The zero value is ready to use.
type ListOptions struct {
	// MatchType is exact, prefix, host or domain; defaults to prefix.
	MatchType string
	// From and To bound the capture times (inclusive, second precision);
	// zero values leave them open.
	From, To time.Time
	// Filters are sent as filter= parameters ("[!]field:regex"); nil
	// defaults to DefaultCDXFilters, an empty non-nil slice sends none.
	Filters []string
	// Collapse is sent as collapse=; defaults to "digest" ("-" sends none).
	Collapse string
	// Limit is the page size (limit=); 0 leaves it to the server.
	Limit int
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
	lim, err := newLimits(o.MaxPages, o.MaxRows, o.MaxBytes, o.MaxListBytes, o.MaxFieldBytes, DefaultMaxPages)
	if err != nil {
		return o, limits{}, err
	}
	if !o.From.IsZero() && !o.To.IsZero() && o.To.Before(o.From) {
		return o, limits{}, fmt.Errorf("archive: to %v before from %v", o.To, o.From)
	}
	if o.Filters == nil {
		o.Filters = DefaultCDXFilters
	}
	if o.Collapse == "" {
		o.Collapse = "digest"
	}
	if o.Source == "" {
		o.Source = "wayback"
	}
	return o, lim, nil
}

// cdxQuery builds the CDX search URL for one page.
func cdxQuery(base, urlPattern string, o ListOptions, resumeKey string) string {
	q := url.Values{}
	q.Set("url", urlPattern)
	q.Set("matchType", o.MatchType)
	q.Set("output", "json")
	q.Set("fl", cdxFieldList)
	q["filter"] = append([]string(nil), o.Filters...)
	if o.Collapse != "-" {
		q.Set("collapse", o.Collapse)
	}
	q.Set("showResumeKey", "true")
	if !o.From.IsZero() {
		q.Set("from", FormatTimestamp(o.From))
	}
	if !o.To.IsZero() {
		q.Set("to", FormatTimestamp(o.To))
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if resumeKey != "" {
		q.Set("resumeKey", resumeKey)
	}
	return strings.TrimRight(base, "/") + "/cdx/search/cdx?" + q.Encode()
}

// List lists the captures of urlPattern (e.g. "example.org/*") in the
// Wayback CDX server at base (e.g. "https://web.archive.org"), following
// resume keys, and calls fn for each capture in the server's order. It
// stops at fn's first error and returns it. A non-200 answer is an
// *HTTPError. The listing stops with a *ListError, after delivering what
// it read, at a bound: pages, rows, bytes, a resume key seen before or
// longer than MaxFieldBytes, or MaxEmptyPages pages in a row without a
// capture.
func List(ctx context.Context, doer Doer, base, urlPattern string, opts ListOptions, fn func(Capture) error) error {
	o, lim, err := opts.validate()
	if err != nil {
		return err
	}
	t := newTally(lim, o.Budget)
	seen := map[string]bool{}
	key := ""
	for empty := 0; ; {
		if t.pages >= lim.pages {
			t.stop(ErrPageLimit, "%d cdx pages", lim.pages)
			break
		}
		rows := t.rows
		next, err := rereadCDXPage(ctx, doer, base, urlPattern, o, key, t, fn)
		if err == errStop || err == nil && !t.nextKey(next, seen) {
			break
		}
		if err != nil {
			t.result()
			return err
		}
		if empty = emptyRun(empty, t.rows == rows); empty >= MaxEmptyPages {
			t.stop(nil, "%d cdx pages in a row without captures", empty)
			break
		}
		key = next
	}
	return t.result()
}

// emptyRun counts the pages in a row that delivered no capture.
func emptyRun(run int, empty bool) int {
	if empty {
		return run + 1
	}
	return 0
}

// nextKey reports whether the listing goes on with resume key k: k is not
// empty, not overlong and not seen before (recording it). A bad key stops
// the listing.
func (t *tally) nextKey(k string, seen map[string]bool) bool {
	switch {
	case k == "":
		return false
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

// rereadCDXPage lists one page, asking again (up to maxPageReads times in
// all) when its answer breaks off (a truncated body, a reset, a stall):
// the captures an earlier read delivered are not delivered again.
func rereadCDXPage(ctx context.Context, doer Doer, base, pattern string, o ListOptions, key string, t *tally, fn func(Capture) error) (string, error) {
	skip := 0
	for read := 1; ; read++ {
		next, passed, err := listCDXPage(ctx, doer, base, pattern, o, key, skip, t, fn)
		if !errors.Is(err, errRead) || read == maxPageReads || ctx.Err() != nil {
			return next, err
		}
		skip = max(skip, passed)
	}
}

// listCDXPage fetches and reports one page, skipping its first skip
// captures, and returns its resume key and the captures it read. At a
// bound it returns errStop.
func listCDXPage(ctx context.Context, doer Doer, base, pattern string, o ListOptions, key string, skip int, t *tally, fn func(Capture) error) (string, int, error) {
	u := cdxQuery(base, pattern, o, key)
	t.pages++
	rc, _, err := Open(ctx, doer, u)
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	body, sink := t.body(rc), t.sink(o.Source, base, fn)
	sink.skip = skip
	next, err := scanCDX(body, sink)
	return next, sink.passed, t.pageEnd(u, body, sink, err)
}
