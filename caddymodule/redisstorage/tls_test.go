package redisstorage

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/logging" // the file log writer
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// loadStorage loads a Caddy configuration whose storage is this module
// with the given settings (JSON object members), logging at warn level
// and above to a file, and returns the storage, the log file and the
// load's error.
func loadStorage(t *testing.T, settings string) (*Storage, string, error) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "caddy.log")
	cfg := fmt.Sprintf(`{"admin":{"disabled":true,"config":{"persist":false}},
		"logging":{"logs":{"default":{"level":"WARN","writer":{"output":"file","filename":%q}}}},
		"storage":{"module":"lazarus_redis",%s}}`, log, settings)
	if err := caddy.Load([]byte(cfg), true); err != nil {
		return nil, log, err
	}
	t.Cleanup(func() { caddy.Stop() })
	st, _ := caddy.ActiveContext().Storage().(*Storage)
	return st, log, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestTLS: with tls set (the server name, a CA file, a client
// certificate and key), the storage talks to a Redis that accepts TLS
// connections only and requires a client certificate: a value stored is
// there through another client. Without tls, or trusting another CA, or
// without the client certificate, nothing goes through.
func TestTLS(t *testing.T) {
	srv := redistest.StartTLS(t, true)
	f := srv.TLS
	ctx := context.Background()
	good := fmt.Sprintf(`"address":%q,"key_prefix":"tls","tls":{"server_name":"localhost","ca_file":%s,"cert_file":%s,"key_file":%s}`,
		srv.Addr, jsonString(f.CA), jsonString(f.ClientCert), jsonString(f.ClientKey))
	st, _, err := loadStorage(t, good)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Store(ctx, "certificates/example.org.key", []byte("private")); err != nil {
		t.Fatalf("storing over TLS: %v", err)
	}
	other := New(srv.Client(t), Options{Prefix: "tls"})
	if v, err := other.Load(ctx, "certificates/example.org.key"); err != nil || string(v) != "private" {
		t.Fatalf("through another client: %q, %v", v, err)
	}
	caddy.Stop()

	otherCA := redistest.NewTLSFiles(t, "localhost")
	for name, settings := range map[string]string{
		"no tls": fmt.Sprintf(`"address":%q`, srv.Addr),
		"another CA": fmt.Sprintf(`"address":%q,"tls":{"ca_file":%s,"cert_file":%s,"key_file":%s}`,
			srv.Addr, jsonString(otherCA.CA), jsonString(f.ClientCert), jsonString(f.ClientKey)),
		"no client certificate": fmt.Sprintf(`"address":%q,"tls":{"ca_file":%s}`, srv.Addr, jsonString(f.CA)),
		"another server name": fmt.Sprintf(`"address":%q,"tls":{"server_name":"redis.example.org","ca_file":%s,"cert_file":%s,"key_file":%s}`,
			srv.Addr, jsonString(f.CA), jsonString(f.ClientCert), jsonString(f.ClientKey)),
	} {
		st, _, err := loadStorage(t, settings)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := st.Store(ctx, "x", []byte("v")); err == nil {
			t.Errorf("%s: a value was stored", name)
		}
		caddy.Stop()
	}
}

// TestTLSSettingsChecked: a client certificate without its key (or the
// other way round) and files that cannot be read fail the load with an
// error naming the setting.
func TestTLSSettingsChecked(t *testing.T) {
	f := redistest.NewTLSFiles(t, "localhost")
	missing := filepath.Join(t.TempDir(), "missing.pem")
	junk := filepath.Join(t.TempDir(), "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	for want, tls := range map[string]string{
		"cert_file":  fmt.Sprintf(`{"cert_file":%s}`, jsonString(f.ClientCert)),
		"key_file":   fmt.Sprintf(`{"key_file":%s}`, jsonString(f.ClientKey)),
		"ca_file":    fmt.Sprintf(`{"ca_file":%s}`, jsonString(missing)),
		"ca_file ":   fmt.Sprintf(`{"ca_file":%s}`, jsonString(junk)),
		"cert_file ": fmt.Sprintf(`{"cert_file":%s,"key_file":%s}`, jsonString(f.ClientKey), jsonString(f.ClientKey)),
	} {
		_, _, err := loadStorage(t, `"address":"127.0.0.1:6379","tls":`+tls)
		if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(want)) {
			t.Errorf("tls %s: %v; want an error naming %s", tls, err, want)
		}
	}
}

// TestWarnsWithoutTLSOffLoopback: an address other than a loopback one
// without tls is loaded (nothing connects yet) with a warning in Caddy's
// log, at warn level, that the password and every value cross the
// network in clear; a loopback address, or tls, gives no warning.
func TestWarnsWithoutTLSOffLoopback(t *testing.T) {
	f := redistest.NewTLSFiles(t, "localhost")
	for _, tc := range []struct {
		settings string
		warn     bool
	}{
		{`"address":"192.0.2.10:6379"`, true},
		{`"address":"redis.example.org:6379"`, true},
		{`"address":"[2001:db8::1]:6379"`, true},
		{`"address":"127.0.0.1:6379"`, false},
		{`"address":"localhost:6379"`, false},
		{`"address":"[::1]:6379"`, false},
		{`"address":"192.0.2.10:6379","tls":{"ca_file":` + jsonString(f.CA) + `}`, false},
	} {
		_, log, err := loadStorage(t, tc.settings)
		if err != nil {
			t.Fatalf("%s: %v", tc.settings, err)
		}
		caddy.Stop()
		b, _ := os.ReadFile(log)
		warned := strings.Contains(string(b), `"level":"warn"`) && strings.Contains(string(b), "without tls")
		if warned != tc.warn {
			t.Errorf("%s: warned %v, want %v; log:\n%s", tc.settings, warned, tc.warn, b)
		}
	}
}
