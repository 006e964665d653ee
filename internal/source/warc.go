package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// Streamer is a Source best read in one pass (local WARC files): Recover
// hands every capture's bytes to the assembler as the stream goes, instead
// of listing first and fetching each capture, and reads it to its end
// (a later file or record may hold a newer generation).
type Streamer interface {
	Stream(ctx context.Context, site *url.URL, fn func(Capture, []byte) error) error
}

// siteOf is the site a capture's URL is on (its scheme, host and port),
// nil if it has none: Fetch resolves a revisit as the listing of that
// site did.
func siteOf(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
}

// errStop ends a stream early once Fetch found its capture.
var errStop = errors.New("recovery complete")

// WARCSource reads captures from a .warc, .warc.gz or .wacz file, or from
// every such file under a directory (what wget --warc-file, Heritrix,
// Browsertrix and the Lazarus demo write). HTML "response" records with
// status 200 count, and the "revisit" records of them (a page fetched
// again unchanged), each a capture of its own URL and date; payloads are
// de-chunked and decoded (contentcoding).
type WARCSource struct {
	Path       string
	MaxCapture int64 // bytes per capture; defaults to DefaultMaxCapture
}

// Name implements Source.
func (s WARCSource) Name() string { return "warc=" + s.Path }

// List implements Source; Stream is the efficient way.
func (s WARCSource) List(ctx context.Context, site *url.URL, fn func(Capture) error) error {
	return s.Stream(ctx, site, func(c Capture, _ []byte) error { return fn(c) })
}

// Fetch implements Source by reading the file again up to the capture.
func (s WARCSource) Fetch(ctx context.Context, c Capture) (io.ReadCloser, error) {
	var out []byte
	var unread error
	var original string
	err := s.Stream(ctx, siteOf(c.URL), func(got Capture, page []byte) error {
		if got.Locator == c.Locator {
			out, unread, original = page, got.Unreadable, got.Original
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	if unread != nil {
		return nil, unread
	}
	if original != "" { // a revisit: its original's bytes
		return s.Fetch(ctx, Capture{Locator: original})
	}
	if out == nil {
		return nil, fmt.Errorf("%s: capture %s no longer found", s.Name(), c.Locator)
	}
	return io.NopCloser(strings.NewReader(string(out))), nil
}

// Stream implements Streamer. Reading and decompressing the file runs
// ahead of fn in a goroutine, so both cores work, holding at most
// streamAhead bytes of captures (or one larger capture) besides the one
// being read and the one fn has. A revisit record is a capture of its
// own URL and date, delivered after its original with Capture.Original
// naming it and a nil page (see revisits).
func (s WARCSource) Stream(ctx context.Context, site *url.URL, fn func(Capture, []byte) error) error {
	limit := s.MaxCapture
	if limit <= 0 {
		limit = DefaultMaxCapture
	}
	type item struct {
		c    Capture
		page []byte
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	items := make(chan item, 8)
	budget := NewBudget(streamAhead)
	walkErr := make(chan error, 1)
	send := func(c Capture, page []byte) error {
		if err := budget.Acquire(ctx, int64(len(page))); err != nil {
			return err
		}
		select {
		case items <- item{c, page}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	go func() {
		defer close(items)
		walkErr <- s.walk(ctx, site, limit, send)
	}()
	for it := range items {
		budget.Release(int64(len(it.page)))
		if err := fn(it.c, it.page); err != nil {
			cancel()
			for range items { // let the reader finish
			}
			<-walkErr
			return err
		}
	}
	return <-walkErr
}

// streamAhead bounds the bytes of the captures Stream read and fn has
// not had yet.
const streamAhead = 32 << 20

// walk reads the source's records and sends its captures: responses,
// and revisits once their original is sent (see revisits).
func (s WARCSource) walk(ctx context.Context, site *url.URL, limit int64, send func(Capture, []byte) error) error {
	rv := newRevisits(site)
	n := 0
	err := warc.Walk(s.Path, func(file string, rec *warc.Record) error {
		n++
		c := Capture{Source: s.Name(), URL: rec.TargetURI, Time: rec.Date,
			Digest: rec.Header.Get("WARC-Payload-Digest"), Locator: file + "#" + strconv.Itoa(n)}
		if rec.Type == "revisit" && rec.TargetURI != "" {
			if c, ok := rv.revisit(rec, c); ok {
				return send(c, nil)
			}
			return ctx.Err()
		}
		page, ok, err := htmlPayload(rec, limit)
		if !ok {
			return ctx.Err()
		}
		if err != nil {
			c.Unreadable = unreadable(c.URL+" of "+c.Time.UTC().Format(time.RFC3339), err)
		} else {
			rv.original(rec, file, n)
		}
		return send(c, page)
	})
	if ctx.Err() != nil {
		return err
	}
	return errors.Join(err, rv.settle(send)) // a file that could not be read is no reason to leave revisits out
}

// htmlPayload returns the decoded HTTP body of an HTML 200 response
// record; ok is false for any other record. A truncated record still
// yields what it has: its intact blocks count. An HTML 200 response whose
// body cannot be decoded (a coding nothing here undoes, a damaged
// stream) is ok with an error saying why.
func htmlPayload(rec *warc.Record, limit int64) (page []byte, ok bool, err error) {
	if rec.Type != "response" || rec.TargetURI == "" {
		return nil, false, nil
	}
	status, header, body, err := rec.HTTPResponse()
	if status != http.StatusOK || !IsHTML(header.Get("Content-Type")) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	// The record's length bounds an identity-coded body: reading into a
	// buffer of that size saves growing one, copy after copy.
	page, err = readBounded(body, limit, rec.ContentLength)
	if err != nil && len(page) == 0 {
		return nil, true, err
	}
	return page, true, nil
}

func IsHTML(ct string) bool {
	if ct == "" {
		return true // guess: scanning costs little, and blocks are verified
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err != nil || mt == "text/html" || mt == "application/xhtml+xml"
}

// CommonCrawlSource is Common Crawl: crawls listed in IndexBase/collinfo.json,
// captures found in each crawl's CDX index (NDJSON), records fetched by
// byte range from DataBase.
type CommonCrawlSource struct {
	IndexBase string // defaults to https://index.commoncrawl.org
	DataBase  string // defaults to https://data.commoncrawl.org
	Crawls    int    // newest crawls searched (collinfo.json lists newest first); defaults to 12, about a year
	Client    Doer
}

// Name implements Source.
func (s CommonCrawlSource) Name() string { return "commoncrawl" }

func (s CommonCrawlSource) bases() (string, string) {
	ib, db := s.IndexBase, s.DataBase
	if ib == "" {
		ib = "https://index.commoncrawl.org"
	}
	if db == "" {
		db = "https://data.commoncrawl.org"
	}
	return strings.TrimSuffix(ib, "/"), strings.TrimSuffix(db, "/")
}

// List implements Source.
func (s CommonCrawlSource) List(ctx context.Context, site *url.URL, fn func(Capture) error) error {
	pattern, err := SitePattern(site)
	if err != nil {
		return err
	}
	ib, db := s.bases()
	crawls, err := archive.ListCrawls(ctx, s.Client, ib+"/collinfo.json")
	if len(crawls) == 0 {
		return err
	}
	errs := []error{err} // crawls left out (an index on another host), if any
	n := s.Crawls
	if n <= 0 {
		n = 12
	}
	budget := archive.NewBudget() // one allowance for all crawls of the source
	for _, cr := range crawls[:min(n, len(crawls))] {
		err := archive.ListCommonCrawl(ctx, s.Client, cr.CDXAPI, pattern+"*", archive.CCOptions{Source: s.Name(), Budget: budget}, func(c archive.Capture) error {
			if c.Status != 0 && c.Status != http.StatusOK {
				return nil
			}
			loc := fmt.Sprintf("%s/%s#%d,%d", db, c.File, c.Offset, c.Length)
			return fn(FromArchive(c, loc))
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("crawl %s: %w", cr.ID, err))
		}
	}
	return errors.Join(errs...)
}

// Fetch implements Source: one byte range, one gzip member, one record.
func (s CommonCrawlSource) Fetch(ctx context.Context, c Capture) (io.ReadCloser, error) {
	u, rng, ok := strings.Cut(c.Locator, "#")
	off, length, ok2 := strings.Cut(rng, ",")
	o, err1 := strconv.ParseInt(off, 10, 64)
	l, err2 := strconv.ParseInt(length, 10, 64)
	if !ok || !ok2 || err1 != nil || err2 != nil || o < 0 || l <= 0 {
		return nil, fmt.Errorf("bad Common Crawl locator %q", c.Locator)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", o, o+l-1))
	resp, err := s.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	rec, err := warc.NewReader(io.LimitReader(resp.Body, l)).Next()
	if err != nil {
		return nil, fmt.Errorf("%s at %d: %w", u, o, err)
	}
	page, ok, err := htmlPayload(rec, DefaultMaxCapture)
	if !ok {
		return nil, fmt.Errorf("%s at %d: not an HTML 200 response record", u, o)
	}
	if err != nil {
		return nil, unreadable(fmt.Sprintf("%s at %s:%d", c.URL, u, o), err)
	}
	return io.NopCloser(strings.NewReader(string(page))), nil
}
