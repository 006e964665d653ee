// Package demo runs the whole life of a site in one command (`lazarus
// demo`): a sample site and server side, keys, a generation (package
// injector), the site served by Caddy with the Lazarus module (the
// caller's Options.Serve: the command starts an in-process Caddy), a crawl
// into a WARC file standing in for the Internet Archive, the loss of the
// site, and the recovery of every server file from the WARC (package
// recover), verified byte for byte. It is the command's, under
// cmd/lazarus, as it drives the public packages like any program would.
package demo
