// Package lazarus preserves a website's server side (scripts, config,
// database dumps) inside the HTML pages web archives already keep, and
// rebuilds it from archived copies after the site is lost.
//
// Where things live:
//
//   - cmd/lazarus: the command (keygen, inject, recover, demo, version).
//     Thin: flags in, one library call, exit code out; it embeds Caddy
//     only to serve the demo (internal/ never imports Caddy).
//   - injector, recover, caddymodule: the three public packages, one per
//     product piece: embedding a backup in a static site's pages, rebuilding
//     it from archived pages, and the Caddy v2 module http.handlers.lazarus
//     (which serves bundles or builds generations itself with injector).
//     Importing this root package plugs that module in (caddy.go), as
//     `xcaddy build --with github.com/lazarus-preserve/lazarus` does.
//   - cmd/caddy: Caddy with its standard modules plus Lazarus.
//   - internal/codec: the pipeline in both directions, built from
//     internal/bundle (deterministic tar+gzip, safe extraction),
//     internal/keys (age encryption, Ed25519 signatures, key files),
//     internal/erasure (Reed-Solomon stripes), internal/block (the block
//     wire format), internal/manifest (the signed manifest) and
//     internal/htmlblock (HTML comment armor, insertion and scanning).
//   - internal/site (which pages of a static site can carry blocks, and
//     what a served page links to and whether it allows archiving),
//     internal/placement (coding parameters and block placement) and
//     internal/ignore (gitignore-style excludes) serve the injector;
//     internal/fetch (the polite HTTP client), internal/archive (CDX,
//     Memento and Common Crawl listing, and archivetest, a local archive
//     for tests) and internal/warc (WARC/WACZ reading and writing) serve
//     the recover sources.
//   - docs/FORMAT.md: the normative wire format and threat model.
//   - testdata: shared fixtures.
package lazarus
