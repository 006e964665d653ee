// Command caddy is Caddy v2 with its standard modules and the Lazarus
// handler (http.handlers.lazarus) built in.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/lazarus-preserve/lazarus/caddymodule"
)

func main() {
	caddycmd.Main()
}
