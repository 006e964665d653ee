package lazarus

// Importing the module root plugs the Caddy modules in, as `xcaddy build
// --with github.com/lazarus-preserve/lazarus` does: xcaddy blank-imports
// the path given to --with. The root package imports nothing else, and
// nothing in this module imports it, so there is no cycle.
import (
	_ "github.com/lazarus-preserve/lazarus/caddymodule"              // http.handlers.lazarus
	_ "github.com/lazarus-preserve/lazarus/caddymodule/redisstorage" // caddy.storage.lazarus_redis
)
