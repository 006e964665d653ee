// Package lazarus preserves a website's server side (scripts, config,
// database dumps) inside the HTML pages web archives already keep, and
// rebuilds it from archived copies after the site is lost. Importing this
// root package plugs the Caddy module in (caddy.go), as
// `xcaddy build --with github.com/lazarus-preserve/lazarus` does.
//
// Where things live. The three public packages are the product: injector
// (put a generation into a static site's pages: Run), recover (rebuild
// the server side from captures: Run) and caddymodule (the Caddy handler
// http.handlers.lazarus, which serves a bundle or builds generations
// itself with injector). cmd/lazarus is the command (keygen, inject,
// recover, verify, status, capture, demo, version): flags in, one library
// call, exit codes and hints out; its demo lives in cmd/lazarus/internal.
// cmd/caddy is Caddy with the module. Everything else is internal/, one
// concept per package, none importing a public package or Caddy: the
// engines of the commands that audit (verify, status, capture); the
// pipeline (codec, over bundle, keys, erasure, block, manifest, htmlblock);
// planning an injection (site, placement, ignore, history); the capture model
// (odds), behind every forecast; where
// archived pages are found and how they are read (source, over archive,
// fetch, warc, contentcoding, spn, siteurl); and small shared pieces
// (rootfile, problems, optionerr, humane, noatime, statushtml, sim).
// Test support is internal/sitetest (shared fixtures), archive/archivetest
// (local archives), contentcoding/codingtest, chromiumtest and proctest;
// testdata/ holds the shared test site, test-only keys and the wire
// format's golden vectors. docs/ is the manual; docs/FORMAT.md is the
// normative wire format and threat model.
package lazarus
