package main

import (
	"encoding/json"
	"fmt"
	"net"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard" // file_server, encode

	_ "github.com/lazarus-preserve/lazarus/caddymodule" // http.handlers.lazarus
)

// serveWithCaddy starts an in-process Caddy on a free loopback port for
// the demo: encode zstd gzip (the README's order), then the Lazarus
// module serving the bundle, then file_server for the site.
func serveWithCaddy(siteDir, bundleDir, storageDir string) (string, func() error, error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	route := map[string]any{"handle": []any{
		map[string]any{"handler": "encode", "encodings": map[string]any{"zstd": map[string]any{}, "gzip": map[string]any{}}, "prefer": []string{"zstd", "gzip"}},
		map[string]any{"handler": "lazarus", "bundle": bundleDir},
		map[string]any{"handler": "file_server", "root": siteDir},
	}}
	cfg := map[string]any{
		"admin":   map[string]any{"disabled": true},
		"storage": map[string]any{"module": "file_system", "root": storageDir},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{"http": map[string]any{"servers": map[string]any{"demo": map[string]any{
			"listen":          []string{fmt.Sprintf("127.0.0.1:%d", port)},
			"automatic_https": map[string]any{"disable": true},
			"routes":          []any{route},
		}}}},
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return "", nil, err
	}
	if err := caddy.Load(raw, true); err != nil {
		return "", nil, fmt.Errorf("starting Caddy: %w", err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/", port), caddy.Stop, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
