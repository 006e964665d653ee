package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/archive"
	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
	"github.com/lazarus-preserve/lazarus/internal/fetch"
)

// Doer sends HTTP requests; NewClient returns a polite one.
type Doer = archive.Doer

// ClientOptions configure NewClient.
type ClientOptions struct {
	Rate    float64 // requests per minute for every host; 0 = conservative per-archive defaults (24/min for the Internet Archive)
	Contact string  // added to the User-Agent, e.g. an email address
}

// NewClient returns the polite HTTP client the archive sources share: per
// host rate limits and concurrency, Retry-After honoured, backoff with
// jitter, failing hosts put to sleep, an honest User-Agent.
func NewClient(o ClientOptions) Doer {
	return fetch.New(fetch.Options{Rate: o.Rate, Contact: o.Contact})
}

// SitePattern is the CDX prefix pattern for a site: host and path.
func SitePattern(site *url.URL) (string, error) {
	if site == nil {
		return "", errNoSiteURL
	}
	return site.Host + strings.TrimSuffix(site.EscapedPath(), "/") + "/", nil
}

func FromArchive(c archive.Capture, locator string) Capture {
	return Capture{Source: c.Source, URL: c.URL, Time: c.Time, Digest: c.Digest, Locator: locator}
}

// errNoSiteURL is returned by sources that list by the site's URL when
// Options.SiteURL is empty.
var errNoSiteURL = errors.New("this source needs the site's URL")

// get fetches a capture's bytes, which must be a 200 answer, with what
// archives leave in a body undone: chunked framing kept inside it and
// content codings (contentcoding.Response).
func get(ctx context.Context, doer Doer, u string) (io.ReadCloser, error) {
	resp, err := archive.OpenResponse(ctx, doer, u)
	if err != nil {
		return nil, err
	}
	body, _, err := contentcoding.Response(resp)
	if err != nil {
		resp.Body.Close()
		return nil, unreadable(u, err)
	}
	return readCloser{body, resp.Body}, nil
}

// readCloser reads a decoded body and closes what it is read from.
type readCloser struct {
	io.Reader
	io.Closer
}

// unreadable says why the bytes of a capture (its URL, and where or
// when) cannot be read.
func unreadable(capture string, err error) error {
	if errors.Is(err, contentcoding.ErrUnsupported) {
		return fmt.Errorf("capture %s is %w", capture, err)
	}
	return fmt.Errorf("capture %s cannot be read: %w", capture, err)
}

// CDXSource is the Internet Archive's Wayback Machine or another CDX
// server, speaking the Wayback's dialect (OpenWayback) or pywb's (pywb,
// the UK Web Archive, national libraries, Common Crawl's index):
// captures are listed with the CDX API (a prefix query over the site,
// HTML with status 200 and revisit records, adjacent duplicates
// collapsed where the server can) and fetched raw from the replay
// prefix ({Replay}{timestamp}id_/{url}).
type CDXSource struct {
	// Base is a Wayback base URL, e.g. https://web.archive.org (the CDX
	// API at Base/cdx/search/cdx, replay under Base/web/), or the URL of
	// a CDX endpoint: …/cdx/search/cdx, or a pywb collection's
	// /{coll}/cdx, /{coll}-cdx or /{coll}-index, whose captures replay
	// under /{coll}/.
	Base string
	// Replay is the raw-replay prefix; defaults to the one Base implies.
	Replay string
	// Dialect is the server's query language; defaults to DialectAuto.
	Dialect CDXDialect
	// Label is the name in reports; defaults to "cdx=" + Base, or
	// "pywb=" + Base for DialectPywb.
	Label  string
	Client Doer
}

// CDXDialect is the query language of a CDX server: how it reads
// filters, names fields, pages and limits answers.
type CDXDialect string

const (
	// DialectAuto speaks the dialect Base's form suggests (pywb for a
	// /{coll}/cdx, -cdx or -index endpoint, else the Wayback's) and
	// switches, once, when the first answer has the other's shape.
	DialectAuto CDXDialect = ""
	// DialectWayback is the Internet Archive's CDX server: whole-field
	// regular expression filters, resume keys.
	DialectWayback CDXDialect = "wayback"
	// DialectPywb is pywb's CDX server API: its own filter syntax and
	// field names, NDJSON, no resume keys, answers cut at a limit
	// without a word (detected, and listed again over narrower time
	// ranges).
	DialectPywb CDXDialect = "pywb"
)

// archiveDialect maps d to the archive package's dialect.
func (d CDXDialect) archiveDialect() (archive.Dialect, error) {
	switch d {
	case DialectAuto:
		return archive.DialectAuto, nil
	case DialectWayback:
		return archive.DialectWayback, nil
	case DialectPywb:
		return archive.DialectPywb, nil
	}
	return 0, fmt.Errorf("unknown CDX dialect %q (want %q, %q or none)", string(d), DialectWayback, DialectPywb)
}

// Name implements Source.
func (s CDXSource) Name() string {
	switch {
	case s.Label != "":
		return s.Label
	case s.Dialect == DialectPywb:
		return "pywb=" + s.Base
	}
	return "cdx=" + s.Base
}

// listOptions are the options of the source's listings.
func (s CDXSource) listOptions() (archive.ListOptions, error) {
	d, err := s.Dialect.archiveDialect()
	return archive.ListOptions{Source: s.Name(), Dialect: d, Replay: s.Replay}, err
}

// List implements Source.
func (s CDXSource) List(ctx context.Context, site *url.URL, fn func(Capture) error) error {
	pattern, err := SitePattern(site)
	if err != nil {
		return err
	}
	o, err := s.listOptions()
	if err != nil {
		return err
	}
	return archive.List(ctx, s.Client, s.Base, pattern, o, func(c archive.Capture) error {
		return fn(FromArchive(c, c.Replay))
	})
}

// Fetch implements Source.
func (s CDXSource) Fetch(ctx context.Context, c Capture) (io.ReadCloser, error) {
	return get(ctx, s.Client, c.Locator)
}

// MementoSource is any Memento (RFC 7089) archive or aggregator: the
// TimeMap of a page is at TimeMapBase + the page's URL; paged TimeMaps
// on the same host are followed; mementos are fetched raw where the
// archive allows (id_), from the TimeMap's host or a known archive.
type MementoSource struct {
	TimeMapBase string // e.g. http://127.0.0.1:1208/timemap/link/
	Client      Doer
	// Hosts are the archives (domains, subdomains included) whose
	// mementos an aggregator's TimeMap may name; nil defaults to
	// archive.KnownArchiveHosts. Mementos on the TimeMap's own host are
	// always fetched, others never.
	Hosts []string
}

// Name implements Source.
func (s MementoSource) Name() string { return "memento=" + s.TimeMapBase }

// List implements Source: the root page's TimeMap. Other pages are listed
// once a manifest names them (see ListPage).
func (s MementoSource) List(ctx context.Context, site *url.URL, fn func(Capture) error) error {
	if site == nil {
		return errNoSiteURL
	}
	return s.ListPage(ctx, site.String(), fn)
}

// ListPage implements PageLister.
func (s MementoSource) ListPage(ctx context.Context, pageURL string, fn func(Capture) error) error {
	return archive.ListTimeMap(ctx, s.Client, s.TimeMapBase+pageURL, archive.TimeMapOptions{Source: s.Name(), Hosts: s.Hosts}, func(c archive.Capture) error {
		return fn(FromArchive(c, c.Replay))
	})
}

// Fetch implements Source.
func (s MementoSource) Fetch(ctx context.Context, c Capture) (io.ReadCloser, error) {
	return get(ctx, s.Client, c.Locator)
}

// LiveSource is the site itself, while it still answers: the root page,
// then the pages a manifest names.
type LiveSource struct{ Client Doer }

// Name implements Source.
func (LiveSource) Name() string { return "live" }

// List implements Source.
func (s LiveSource) List(ctx context.Context, site *url.URL, fn func(Capture) error) error {
	if site == nil {
		return errNoSiteURL
	}
	return s.ListPage(ctx, site.String(), fn)
}

// ListPage implements PageLister.
func (s LiveSource) ListPage(_ context.Context, pageURL string, fn func(Capture) error) error {
	return fn(Capture{Source: "live", URL: pageURL, Locator: pageURL})
}

// Fetch implements Source.
func (s LiveSource) Fetch(ctx context.Context, c Capture) (io.ReadCloser, error) {
	return get(ctx, s.Client, c.Locator)
}

// PageLister is a Source that lists one page's captures at a time
// (Memento TimeMaps, the live site). Recover asks it for the pages a
// verified manifest names.
type PageLister interface {
	ListPage(ctx context.Context, pageURL string, fn func(Capture) error) error
}
