package redisstorage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

// TestUnmarshalCaddyfile: every setting, the address as an argument, and
// each kind of bad input refused with an error.
func TestUnmarshalCaddyfile(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Module // zero when an error is expected
	}{
		{`lazarus_redis`, Module{}},
		{`lazarus_redis 10.0.0.1:6380`, Module{Address: "10.0.0.1:6380"}},
		{`lazarus_redis {
			address 127.0.0.1:7000
			username caddy
			password_file /etc/redis.pass
			db 3
			key_prefix site1
			lock_ttl 2s
			dial_timeout 500ms
		}`, Module{Address: "127.0.0.1:7000", Username: "caddy", PasswordFile: "/etc/redis.pass", DB: 3, KeyPrefix: "site1",
			LockTTL: caddy.Duration(2 * time.Second), DialTimeout: caddy.Duration(500 * time.Millisecond)}},
		{"lazarus_redis {\n tls\n}", Module{TLS: &TLS{}}}, // the system's roots, the address's host
		{`lazarus_redis 10.0.0.5:6380 {
			tls {
				server_name redis.internal
				ca_file /etc/caddy/redis-ca.pem
				cert_file /etc/caddy/redis-client.pem
				key_file /etc/caddy/redis-client.key
			}
		}`, Module{Address: "10.0.0.5:6380", TLS: &TLS{ServerName: "redis.internal", CAFile: "/etc/caddy/redis-ca.pem",
			CertFile: "/etc/caddy/redis-client.pem", KeyFile: "/etc/caddy/redis-client.key"}}},
		{"lazarus_redis {\n tls yes\n}", Module{}},                   // no argument
		{"lazarus_redis {\n tls {\n ca_file\n }\n}", Module{}},       // missing value
		{"lazarus_redis {\n tls {\n insecure true\n }\n}", Module{}}, // unknown: the server is always checked
		{"lazarus_redis {\n tls {\n ca_file a b\n }\n}", Module{}},   // two values
		{`lazarus_redis a:1 b:2`, Module{}},                          // two addresses
		{"lazarus_redis {\n db -1\n}", Module{}},                     // negative db
		{"lazarus_redis {\n db x\n}", Module{}},                      // not a number
		{"lazarus_redis {\n lock_ttl 0s\n}", Module{}},               // zero duration
		{"lazarus_redis {\n dial_timeout soon\n}", Module{}},         // not a duration
		{"lazarus_redis {\n address\n}", Module{}},                   // missing value
		{"lazarus_redis {\n address a:1 b:2\n}", Module{}},           // two values
		{"lazarus_redis {\n password hunter2\n}", Module{}},          // unknown (and secrets go in files)
	} {
		var m Module
		err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in))
		bad := reflect.DeepEqual(tc.want, Module{}) && tc.in != "lazarus_redis"
		switch {
		case bad && err == nil:
			t.Errorf("%q: accepted as %+v", tc.in, m)
		case !bad && (err != nil || !reflect.DeepEqual(m, tc.want)):
			t.Errorf("%q: %+v (tls %+v), %v; want %+v (tls %+v)", tc.in, m, m.TLS, err, tc.want, tc.want.TLS)
		}
	}
}

// TestCaddyfileAdapt: the global option adapts to the storage module's
// JSON, as Caddy's Caddyfile adapter writes it.
func TestCaddyfileAdapt(t *testing.T) {
	in := `{
	storage lazarus_redis {
		address 127.0.0.1:6379
		key_prefix shop
		lock_ttl 5s
		tls {
			ca_file /etc/caddy/redis-ca.pem
		}
	}
}
:8080 {
	respond ok
}
`
	out, _, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Storage json.RawMessage `json:"storage"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	want := `{"address":"127.0.0.1:6379","key_prefix":"shop","lock_ttl":5000000000,"module":"lazarus_redis","tls":{"ca_file":"/etc/caddy/redis-ca.pem"}}`
	if string(cfg.Storage) != want {
		t.Errorf("storage JSON %s, want %s", cfg.Storage, want)
	}
}

// TestValidate: Provision's defaults pass; bad values are refused.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		m  Module
		ok bool
	}{
		{Module{Address: "127.0.0.1:6379"}, true},
		{Module{Address: "[::1]:6379", DB: 15, LockTTL: caddy.Duration(time.Second)}, true},
		{Module{Address: "localhost"}, false},
		{Module{Address: "h:1", DB: -1}, false},
		{Module{Address: "h:1", LockTTL: caddy.Duration(time.Millisecond)}, false},
		{Module{Address: "h:1", KeyPrefix: "a b"}, false},
		{Module{Address: "h:1", KeyPrefix: "a:v"}, false}, // would name prefix "a"'s keys (or "a" its)
		{Module{Address: "h:1", KeyPrefix: "site-1.example"}, true},
		{Module{Address: "h:1", TLS: &TLS{}}, true},
		{Module{Address: "h:1", TLS: &TLS{CertFile: "c.pem"}}, false}, // its key missing
		{Module{Address: "h:1", TLS: &TLS{KeyFile: "k.pem"}}, false},  // its certificate missing
	} {
		if err := tc.m.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%+v) = %v", tc.m, err)
		}
	}
}

// caddyfileText writes m back in Caddyfile syntax.
func caddyfileText(m Module) string {
	var b strings.Builder
	b.WriteString("lazarus_redis {\n")
	q := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\t%s \"%s\"\n", k, v) // fuzz_test.go keeps quotes and backslashes out
		}
	}
	q("address", m.Address)
	q("username", m.Username)
	q("password_file", m.PasswordFile)
	q("key_prefix", m.KeyPrefix)
	if m.DB != 0 {
		fmt.Fprintf(&b, "\tdb %d\n", m.DB)
	}
	if m.LockTTL != 0 {
		fmt.Fprintf(&b, "\tlock_ttl %dns\n", m.LockTTL)
	}
	if m.DialTimeout != 0 {
		fmt.Fprintf(&b, "\tdial_timeout %dns\n", m.DialTimeout)
	}
	if m.TLS != nil {
		b.WriteString("\ttls {\n")
		q("\tserver_name", m.TLS.ServerName)
		q("\tca_file", m.TLS.CAFile)
		q("\tcert_file", m.TLS.CertFile)
		q("\tkey_file", m.TLS.KeyFile)
		b.WriteString("\t}\n")
	}
	b.WriteString("}\n")
	return b.String()
}
