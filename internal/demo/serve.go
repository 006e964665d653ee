package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard" // file_server, encode
	"github.com/klauspost/compress/gzip"

	_ "github.com/lazarus-preserve/lazarus/caddymodule" // http.handlers.lazarus
)

// serve starts an in-process Caddy on a free loopback port: encode gzip,
// then the Lazarus module serving the bundle, then file_server for the
// site. It returns the site's URL; stop with caddy.Stop.
func serve(siteDir, bundleDir, storageDir string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	route := map[string]any{"handle": []any{
		map[string]any{"handler": "encode", "encodings": map[string]any{"gzip": map[string]any{}}},
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
		return "", err
	}
	if err := caddy.Load(raw, true); err != nil {
		return "", fmt.Errorf("starting Caddy: %w", err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/", port), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
