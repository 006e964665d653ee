// Package capture is the capture-and-confirm loop, the engine of
// `lazarus capture` and of the Caddy module's capture requests: it finds
// what the archives still lack of the newest generation (package status)
// among the pages that carry it (package verify's crawl), asks the
// archives that capture on request (package ondemand; the Internet
// Archive's Save Page Now, package spn) for the fewest pages that make
// every stripe whole with a margin, asks again for what fails or never
// shows in the archive's listing, within each archive's limits, and
// audits the archives until they hold the generation (confirmed).
package capture
