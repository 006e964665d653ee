// Package archivetest runs local HTTP servers that speak the web-archive
// protocols package archive lists from, for offline tests.
//
// One Server holds an in-memory set of captures and answers, on one
// 127.0.0.1 address:
//
//   - the Wayback CDX API at /cdx/search/cdx (url with prefix, host and
//     domain matching, fl, filter with ! negation and regular expressions,
//     collapse of adjacent duplicates, from/to, limit, showResumeKey and
//     resumeKey paging, JSON and text output);
//   - Wayback replay at /web/{timestamp}{modifier}/{original}: with the id_
//     modifier the stored bytes exactly, otherwise a rewritten page with a
//     toolbar comment block inserted after <body>;
//   - Memento TimeMaps at /timemap/link/{original}, optionally paged with
//     rel="timemap" links to the previous and next pages;
//   - a Common Crawl style index: /collinfo.json, /{crawl}-index answering
//     NDJSON with showNumPages and page=N, and the WARC files at
//     /crawl-data/… with Range support.
//
// With Config.Pywb the server is one pywb collection instead, following
// pywb's documented CDX server API rather than the Internet Archive's:
// the CDX API at a configurable path (/{coll}/cdx by default) answering
// cdxj, NDJSON or text, pywb's filter syntax and field names, a limit
// that silently cuts answers, no resume keys, and replay at
// /{coll}/{timestamp}id_/{original}. Captures may be revisit records,
// listed as warc/revisit and replayed with their original's payload.
//
// Faults (429 with Retry-After, 503, connection resets, stalls, truncated
// bodies, malformed CDX rows and TimeMap lines, slow bodies) are injected
// at configurable, seeded rates (Mix: all kinds at one total rate), and
// every request is logged with its arrival time and fault so tests can
// assert a client's request rate (CheckRate) and what it asked again.
package archivetest
