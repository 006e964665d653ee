// Package caddymodule is the Caddy v2 HTTP handler http.handlers.lazarus
// (Caddyfile directive `lazarus`), which embeds backup blocks in the pages
// Caddy serves. It is the only package that imports Caddy.
//
// Generations come from a bundle directory written by `lazarus inject
// --bundle` (Handler.Bundle; see injector/bundledir.go) or are built by the
// handler in the background with the same injector code (Handler.Build,
// builder.go) and kept in Caddy's configured storage. Both are read through
// one certmagic.Storage reader (generation.go). The handler holds the HTML
// responses of the handlers after it, up to max_buffer (recorder.go),
// inserts the current generation's blocks as HTML comments before </body>
// (layout.go) and answers for the final bytes (serve.go, conditional.go);
// every other response, and the client's Range, conditionals and HEAD for
// it, pass through untouched (Handler.ServeHTTP states the rule).
//
// Which blocks a page carries (placer.go): the blocks plan.json lists for
// its path, if any; else, the first time the path (in canonical form:
// links.go) is served, the least-covered blocks of the generation,
// recorded in Caddy's storage so the same URL gets the same bytes on every
// instance sharing the storage; once every block has Handler.Copies
// verified carriers (pages reachable by links from the root: links.go),
// one of a fixed table of block sets chosen by a hash of the path, which
// needs no state. The manifest goes on "/", on the URLs plan.json names
// for it, and on the pages the root links to that are first served after
// it. docs/FORMAT.md §14 describes the storage layout.
//
// Every page version served with blocks is recorded, off the request
// path, in the serve history in storage (servehistory.go, over
// historystore.go; FORMAT §14.1): `lazarus status` and the optional
// scheduled audit (audit.go, auditcaddyfile.go), which exports what the
// archives hold as metrics, know a capture by its digest without
// fetching it.
//
// Each concept has its file (handler, switch, serve, recorder, inspect,
// links, layout, generation, placer, builder, retain, mirror, cache,
// conditional, metrics, audit, capture, caddyfile, errors), and each file
// has its _test.go beside it.
package caddymodule
