// Package caddymodule is the Caddy v2 HTTP handler http.handlers.lazarus
// (Caddyfile directive `lazarus`), which embeds backup blocks in the pages
// Caddy serves. It is the only package that imports Caddy.
//
// The handler reads a bundle directory written by `lazarus inject --bundle`
// (see injector/bundledir.go), buffers HTML responses of the handlers after
// it and inserts the current generation's blocks as HTML comments before
// </body>. Which blocks a page carries depends only on the generation and
// the page's URL path, so the same URL always gets the same bytes and several
// Caddy instances serving one bundle produce identical pages:
//
//   - the blocks plan.json lists for the path, if any;
//   - else blocks picked from the generation's full block list by
//     SHA-256(generation id || path): a start index and a stride coprime
//     with the number of blocks, taking blocks until the page budget is
//     used (at least one).
//
// The manifest goes on "/" and on the URLs plan.json names for it.
//
// Future work: a persistent least-covered assignment kept in Caddy storage,
// so that dynamic sites spread blocks evenly over the pages actually served.
package caddymodule
