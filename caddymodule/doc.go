// Package caddymodule is the Caddy v2 HTTP handler http.handlers.lazarus
// (Caddyfile directive `lazarus`), which embeds backup blocks in the pages
// Caddy serves. It is the only package that imports Caddy.
package caddymodule
