// Package source is where archived pages are found: the Source interface
// (list a site's captures, fetch one's bytes) and one implementation per
// kind of archive — the Wayback Machine and other CDX servers (either
// dialect), Common Crawl, Memento TimeMaps, WARC and WACZ files, mirror
// directories and the live site — with Parse for their spellings on a
// command line. Bodies come back as the site sent them: content codings,
// chunked framing left inside replays and WARC revisit records are
// undone here, and every read is bounded. Recovery, status, verify and
// the Caddy module's audits all read archives through it.
package source
