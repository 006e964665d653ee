package caddymodule

// The Caddyfile examples of docs/CLUSTER.md (TestDocsCaddyfiles) include
// the global option `storage lazarus_redis`: the tests register that
// module as cmd/caddy and the module root do.
import _ "github.com/lazarus-preserve/lazarus/caddymodule/redisstorage"
