package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Crawl is one Common Crawl collection as listed by collinfo.json.
type Crawl struct {
	ID       string `json:"id"`       // e.g. "CC-MAIN-2024-10"
	Name     string `json:"name"`     // human-readable name
	TimeGate string `json:"timegate"` // Memento TimeGate of the crawl
	CDXAPI   string `json:"cdx-api"`  // index endpoint, e.g. https://index.commoncrawl.org/CC-MAIN-2024-10-index
}

// ParseCollInfo parses collinfo.json: a JSON array of crawls. Entries
// without an id or cdx-api are an error.
func ParseCollInfo(data []byte) ([]Crawl, error) {
	var crawls []Crawl
	if err := json.Unmarshal(data, &crawls); err != nil {
		return nil, fmt.Errorf("%w: collinfo: %v", ErrMalformed, err)
	}
	for i, c := range crawls {
		if c.ID == "" || c.CDXAPI == "" {
			return nil, fmt.Errorf("%w: collinfo entry %d lacks id or cdx-api", ErrMalformed, i)
		}
	}
	return crawls, nil
}

// ParseCCIndex parses one Common Crawl index answer (output=json): one JSON
// object per line with string fields url, timestamp, mime, status, digest,
// length, offset and filename. Unknown fields are ignored, "-" or missing
// numbers become 0, and lines with a bad or implausible timestamp are
// dropped. Source and Replay are left empty; File, Offset and Length locate
// the WARC record on the data host.
func ParseCCIndex(data []byte) ([]Capture, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("%w: cc index: want NDJSON objects", ErrMalformed)
	}
	return parseNDJSON(data, "")
}

// ListCrawls fetches and parses the collinfo.json at u
// (https://index.commoncrawl.org/collinfo.json).
func ListCrawls(ctx context.Context, doer Doer, u string) ([]Crawl, error) {
	body, _, err := get(ctx, doer, u, DefaultMaxBytes)
	if err != nil {
		return nil, err
	}
	crawls, err := ParseCollInfo(body)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", u, err)
	}
	return crawls, nil
}

// CCOptions tunes ListCommonCrawl. The zero value is ready to use.
type CCOptions struct {
	// MatchType is sent as matchType= when set (exact, prefix, host,
	// domain); by default the server infers it from a trailing "*".
	MatchType string
	// Filters are sent verbatim as filter= parameters (pywb syntax, e.g.
	// "=status:200"); defaults to none.
	Filters []string
	// Source names the captures' source; defaults to "commoncrawl".
	Source string
	// MaxPages bounds the index pages fetched; defaults to DefaultMaxPages.
	MaxPages int
	// MaxBytes bounds one answer; defaults to DefaultMaxBytes.
	MaxBytes int64
}

// ccQuery builds one index query against cdxAPI.
func ccQuery(cdxAPI, pattern string, o CCOptions, extra url.Values) string {
	q := url.Values{}
	q.Set("url", pattern)
	q.Set("output", "json")
	if o.MatchType != "" {
		q.Set("matchType", o.MatchType)
	}
	if len(o.Filters) > 0 {
		q["filter"] = append([]string(nil), o.Filters...)
	}
	for k, v := range extra {
		q[k] = v
	}
	sep := "?"
	if strings.Contains(cdxAPI, "?") {
		sep = "&"
	}
	return cdxAPI + sep + q.Encode()
}

// CCNumPages asks the index for the number of pages of a query
// (showNumPages=true, answered {"pages": N, ...}). A 404 means no captures
// and gives 0 pages.
func CCNumPages(ctx context.Context, doer Doer, cdxAPI, pattern string, o CCOptions) (int, error) {
	u := ccQuery(cdxAPI, pattern, o, url.Values{"showNumPages": {"true"}})
	body, status, err := get(ctx, doer, u, 1<<20, http.StatusNotFound)
	if err != nil || status == http.StatusNotFound {
		return 0, err
	}
	var info struct {
		Pages *int `json:"pages"`
	}
	if err := json.Unmarshal(body, &info); err != nil || info.Pages == nil || *info.Pages < 0 {
		return 0, fmt.Errorf("%w: %s: bad page count %.100q", ErrMalformed, u, body)
	}
	return *info.Pages, nil
}

// ListCommonCrawl lists the captures of pattern (e.g. "example.org/*") in
// one crawl's index at cdxAPI, fetching page=0, 1, … up to the page count
// the index reports (and stopping early at an empty page), and calls fn for
// each capture. A 404 answer ("No Captures found") is an empty page; other
// non-200 answers (Common Crawl's index often answers 503) are *HTTPError.
func ListCommonCrawl(ctx context.Context, doer Doer, cdxAPI, pattern string, opts CCOptions, fn func(Capture) error) error {
	o, err := opts.validate()
	if err != nil {
		return err
	}
	pages, err := CCNumPages(ctx, doer, cdxAPI, pattern, o)
	if err != nil {
		return err
	}
	if pages > o.MaxPages {
		return fmt.Errorf("%w: %d index pages for %s (max %d)", ErrPageLimit, pages, pattern, o.MaxPages)
	}
	for p := 0; p < pages; p++ {
		empty, err := listCCPage(ctx, doer, cdxAPI, pattern, o, p, fn)
		if err != nil || empty {
			return err
		}
	}
	return nil
}

// validate checks the options and fills defaults.
func (o CCOptions) validate() (CCOptions, error) {
	switch o.MatchType {
	case "", "exact", "prefix", "host", "domain":
	default:
		return o, fmt.Errorf("archive: invalid match type %q", o.MatchType)
	}
	if o.MaxPages < 0 || o.MaxBytes < 0 {
		return o, fmt.Errorf("archive: negative page or byte bound")
	}
	if o.Source == "" {
		o.Source = "commoncrawl"
	}
	if o.MaxPages == 0 {
		o.MaxPages = DefaultMaxPages
	}
	return o, nil
}

// listCCPage fetches one index page, reports its captures and tells
// whether the page was empty.
func listCCPage(ctx context.Context, doer Doer, cdxAPI, pattern string, o CCOptions, page int, fn func(Capture) error) (bool, error) {
	u := ccQuery(cdxAPI, pattern, o, url.Values{"page": {strconv.Itoa(page)}})
	body, _, err := get(ctx, doer, u, o.MaxBytes, http.StatusNotFound)
	if err != nil {
		return false, err
	}
	caps, err := ParseCCIndex(body)
	if err != nil {
		return false, fmt.Errorf("archive: %s: %w", u, err)
	}
	for _, c := range caps {
		c.Source = o.Source
		if err := fn(c); err != nil {
			return false, err
		}
	}
	return len(bytes.TrimSpace(body)) == 0, nil
}
