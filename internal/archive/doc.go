// Package archive lists archived captures of a site in public web archives.
//
// It implements the listing and parsing side of three protocols:
//
//   - CDX server APIs in two dialects, see List, ResolveCDX and
//     ParseCDXJSON: the Wayback's ({base}/cdx/search/cdx, whole-field
//     regex filters, JSON array-of-arrays with a header row, paged with
//     resume keys) and pywb's (/{coll}/cdx and the like, its own filter
//     syntax and field names, NDJSON, cdxj or text answers, no resume
//     keys, answers cut silently at a limit, which List detects and works
//     around with narrower time ranges);
//   - Memento TimeMaps (RFC 7089, application/link-format), see ListTimeMap
//     and ParseTimeMap;
//   - the Common Crawl index (collinfo.json and per-crawl CDX APIs answering
//     NDJSON, paged with page=N), see ListCrawls, ListCommonCrawl and
//     ParseCCIndex.
//
// Every client takes a base URL and a Doer, so tests point them at the local
// servers of package archivetest and the caller's politeness layer (rate
// limits, Retry-After, User-Agent) wraps the HTTP client. Throttling answers
// (429, 503) surface as *HTTPError carrying the server's Retry-After.
//
// All parsers treat their input as untrusted: they never panic, read at most
// an explicit number of bytes and return errors wrapping ErrMalformed or
// ErrTooLarge. Listings read answers row by row and are bounded in pages,
// rows, bytes and field length (see DefaultMaxRows and the options); at a
// bound they stop, keep what they delivered and return a *ListError
// wrapping ErrTruncated. They follow only links on the archive's own host
// (and mementos on known archives, see KnownArchiveHosts); others are left
// out and reported with ErrForeignHost.
package archive
