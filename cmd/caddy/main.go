// Command caddy is Caddy v2 with its standard modules, the Lazarus
// handler (http.handlers.lazarus) and the Redis storage
// (caddy.storage.lazarus_redis) built in.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/lazarus-preserve/lazarus/caddymodule"
	_ "github.com/lazarus-preserve/lazarus/caddymodule/redisstorage"
)

func main() {
	caddycmd.Main()
}
