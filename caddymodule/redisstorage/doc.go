// Package redisstorage is a Caddy storage module, caddy.storage.lazarus_redis,
// keeping Caddy's storage in Redis (with github.com/redis/go-redis/v9) so
// that several Caddy servers share certificates and the Lazarus handler's
// state: generations, placement, serve history and the locks that keep
// one build at a time.
//
// storage.go is the certmagic.Storage (values, listing), lock.go the
// certmagic.Locker (tokens, refresh, compare-and-delete), module.go the
// Caddy module and caddyfile.go its Caddyfile syntax.
package redisstorage
