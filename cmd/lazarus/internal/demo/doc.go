// Package demo runs the whole life of a site in one command (`lazarus
// demo`): a sample site and server side, keys, a generation, the site
// served by Caddy with the Lazarus module (the caller's Options.Serve: the
// CLI starts an in-process Caddy, so internal/ never imports Caddy), a
// crawl into a
// WARC file standing in for the Internet Archive, the loss of the site,
// and the recovery of every server file from the WARC, verified byte for
// byte.
package demo
