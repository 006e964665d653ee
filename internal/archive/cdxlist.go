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

// DefaultMaxPages bounds the number of pages one listing fetches.
const DefaultMaxPages = 1000

// ErrPageLimit is returned when a listing needs more pages than allowed.
var ErrPageLimit = errors.New("archive: page limit reached")

// DefaultCDXFilters are the filters List sends when ListOptions.Filters is
// nil: only successful HTML captures can carry blocks.
var DefaultCDXFilters = []string{"statuscode:200", "mimetype:text/html"}

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
}

// validate checks the options and fills defaults.
func (o ListOptions) validate() (ListOptions, error) {
	switch o.MatchType {
	case "":
		o.MatchType = "prefix"
	case "exact", "prefix", "host", "domain":
	default:
		return o, fmt.Errorf("archive: invalid match type %q", o.MatchType)
	}
	if o.Limit < 0 || o.MaxPages < 0 || o.MaxBytes < 0 {
		return o, fmt.Errorf("archive: negative limit, page or byte bound")
	}
	if !o.From.IsZero() && !o.To.IsZero() && o.To.Before(o.From) {
		return o, fmt.Errorf("archive: to %v before from %v", o.To, o.From)
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
	if o.MaxPages == 0 {
		o.MaxPages = DefaultMaxPages
	}
	return o, nil
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
// *HTTPError; a resume key seen twice ends the listing with ErrMalformed.
func List(ctx context.Context, doer Doer, base, urlPattern string, opts ListOptions, fn func(Capture) error) error {
	o, err := opts.validate()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	key := ""
	for page := 0; ; page++ {
		if page >= o.MaxPages {
			return fmt.Errorf("%w: %d cdx pages for %s", ErrPageLimit, o.MaxPages, urlPattern)
		}
		next, err := listCDXPage(ctx, doer, base, urlPattern, o, key, fn)
		if err != nil || next == "" {
			return err
		}
		if seen[next] {
			return fmt.Errorf("%w: cdx resume key %q repeated", ErrMalformed, next)
		}
		seen[next] = true
		key = next
	}
}

// listCDXPage fetches and reports one page and returns its resume key.
func listCDXPage(ctx context.Context, doer Doer, base, pattern string, o ListOptions, key string, fn func(Capture) error) (string, error) {
	u := cdxQuery(base, pattern, o, key)
	body, _, err := get(ctx, doer, u, o.MaxBytes)
	if err != nil {
		return "", err
	}
	caps, next, err := ParseCDXJSON(body, base)
	if err != nil {
		return "", fmt.Errorf("archive: %s: %w", u, err)
	}
	for _, c := range caps {
		c.Source = o.Source
		if err := fn(c); err != nil {
			return "", err
		}
	}
	return next, nil
}
