package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	var caps []Capture
	sink := &rowSink{emit: func(c Capture) error {
		caps = append(caps, c)
		return nil
	}}
	if err := scanCCIndex(bytes.NewReader(data), sink); err != nil {
		return nil, err
	}
	return caps, nil
}

// scanCCIndex reads one index answer line by line into sink.
func scanCCIndex(r io.Reader, sink *rowSink) error {
	br := bufio.NewReader(readErrs{r})
	first, err := firstNonSpace(br)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	if first != '{' {
		return fmt.Errorf("%w: cc index: want NDJSON objects", ErrMalformed)
	}
	return scanNDJSON(br, sink)
}

// ListCrawls fetches and parses the collinfo.json at u
// (https://index.commoncrawl.org/collinfo.json), reading at most
// DefaultMaxCollInfoBytes. A crawl whose cdx-api is not on u's host is
// never queried: ListCrawls returns the other crawls together with an
// error wrapping ErrForeignHost that names it.
func ListCrawls(ctx context.Context, doer Doer, u string) ([]Crawl, error) {
	body, _, err := get(ctx, doer, u, DefaultMaxCollInfoBytes)
	if err != nil {
		return nil, err
	}
	crawls, err := ParseCollInfo(body)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", u, err)
	}
	return sameHostCrawls(u, crawls)
}

// sameHostCrawls resolves each crawl's cdx-api against the collinfo URL u
// and keeps the crawls whose index is on u's host.
func sameHostCrawls(u string, crawls []Crawl) ([]Crawl, error) {
	base, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("archive: collinfo url %q: %w", u, err)
	}
	var kept []Crawl
	var skipped []string
	for _, c := range crawls {
		api, err := base.Parse(c.CDXAPI)
		if err != nil || !isWeb(api) || !sameHost(base, api) {
			skipped = append(skipped, fmt.Sprintf("%s (cdx-api %.200q)", c.ID, c.CDXAPI))
			continue
		}
		c.CDXAPI = api.String()
		kept = append(kept, c)
	}
	if len(skipped) > 0 {
		return kept, fmt.Errorf("%w: %s: crawls whose index is not on %s skipped: %s", ErrForeignHost, u, base.Host, strings.Join(skipped, ", "))
	}
	return kept, nil
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
	// MaxRows bounds the captures delivered; defaults to DefaultMaxRows.
	MaxRows int
	// MaxListBytes bounds the bytes of all answers; defaults to
	// DefaultMaxListBytes.
	MaxListBytes int64
	// MaxFieldBytes bounds a kept field; defaults to DefaultMaxFieldBytes.
	MaxFieldBytes int
	// Budget, if set, is shared with the listings of other crawls of the
	// same source and lowers MaxRows and MaxListBytes to what it has left;
	// defaults to none.
	Budget *Budget
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
// At a bound (pages, rows, bytes) the listing stops with a *ListError
// after delivering what it read.
func ListCommonCrawl(ctx context.Context, doer Doer, cdxAPI, pattern string, opts CCOptions, fn func(Capture) error) error {
	o, lim, err := opts.validate()
	if err != nil {
		return err
	}
	pages, err := CCNumPages(ctx, doer, cdxAPI, pattern, o)
	if err != nil {
		return err
	}
	t := newTally(lim, o.Budget)
	for p := 0; p < pages; p++ {
		if p >= lim.pages {
			t.stop(ErrPageLimit, "%d of %d index pages", lim.pages, pages)
			break
		}
		empty, err := listCCPage(ctx, doer, cdxAPI, pattern, o, p, t, fn)
		if err == errStop {
			break
		}
		if err != nil {
			t.result()
			return err
		}
		if empty {
			break
		}
	}
	return t.result()
}

// validate checks the options and fills defaults.
func (o CCOptions) validate() (CCOptions, limits, error) {
	switch o.MatchType {
	case "", "exact", "prefix", "host", "domain":
	default:
		return o, limits{}, fmt.Errorf("archive: invalid match type %q", o.MatchType)
	}
	lim, err := newLimits(o.MaxPages, o.MaxRows, o.MaxBytes, o.MaxListBytes, o.MaxFieldBytes, DefaultMaxPages)
	if err != nil {
		return o, limits{}, err
	}
	if o.Source == "" {
		o.Source = "commoncrawl"
	}
	return o, lim, nil
}

// listCCPage fetches one index page, reports its captures and tells
// whether the page was empty. At a bound it returns errStop.
func listCCPage(ctx context.Context, doer Doer, cdxAPI, pattern string, o CCOptions, page int, t *tally, fn func(Capture) error) (bool, error) {
	u := ccQuery(cdxAPI, pattern, o, url.Values{"page": {strconv.Itoa(page)}})
	t.pages++
	rc, _, err := Open(ctx, doer, u, http.StatusNotFound)
	if err != nil || rc == nil {
		return err == nil, err // 404: no captures
	}
	defer rc.Close()
	body, sink := t.body(rc), t.sink(o.Source, "", fn)
	err = scanCCIndex(body, sink)
	return sink.seen == 0, t.pageEnd(u, body, sink, err)
}
