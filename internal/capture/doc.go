// Package capture is the engine of `lazarus capture` and of the Caddy
// module's capture requests: it finds what the archives still lack of
// the newest generation (package status) among the pages that carry it
// (package verify's crawl), asks the Internet Archive's Save Page Now
// for the fewest pages that make every stripe whole with a margin, and
// waits for the captures to show in the archive's index.
package capture
