package recover

import "github.com/lazarus-preserve/lazarus/internal/source"

// Source is somewhere archived pages can be found: an archive's API, a
// WARC file, a mirror directory. ParseSource makes the ones Lazarus
// knows; a program may implement its own.
type Source = source.Source

// Capture is one archived copy of one page, as a Source lists it.
type Capture = source.Capture

// Streamer is a Source best read in one pass (local WARC files).
type Streamer = source.Streamer

// PageLister is a Source that lists one page's captures at a time.
type PageLister = source.PageLister

// Doer sends HTTP requests; NewClient returns a polite one.
type Doer = source.Doer

// ClientOptions configure NewClient.
type ClientOptions = source.ClientOptions

// NewClient returns the polite HTTP client the archive sources share: per
// host rate limits and concurrency, Retry-After honoured, backoff with
// jitter, failing hosts put to sleep, an honest User-Agent.
func NewClient(o ClientOptions) Doer { return source.NewClient(o) }

// SourceKinds lists the kinds ParseSource accepts.
const SourceKinds = source.Kinds

// ParseSource makes a Source from its spelling on a command line or in a
// Caddyfile: "wayback[=BASE]" (default https://web.archive.org),
// "commoncrawl[=INDEX[,DATA]]", "cdx=URL[,REPLAY]", "pywb=URL[,REPLAY]",
// "memento=TIMEMAP_BASE", "warc=FILE", "dir=MIRROR" or "live". Network
// sources use client.
func ParseSource(spec string, client Doer) (Source, error) { return source.Parse(spec, client) }

// DefaultMaxCapture bounds one fetched capture (bytes).
const DefaultMaxCapture = source.DefaultMaxCapture
