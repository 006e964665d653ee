package redisstorage

import (
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// FuzzCaddyfile: the storage's Caddyfile parser never panics, and what it
// accepts, written back as a Caddyfile, parses to the same settings.
func FuzzCaddyfile(f *testing.F) {
	f.Add("lazarus_redis 127.0.0.1:6379")
	f.Add("lazarus_redis {\n address 10.1.1.1:6379\n db 2\n key_prefix x\n lock_ttl 3s\n dial_timeout 1s\n password_file /p\n username u\n}")
	f.Add("lazarus_redis {\n db 99999999999999999999\n}")
	f.Add("lazarus_redis {\n lock_ttl 1d\n}")
	f.Add("lazarus_redis {\n tls {\n server_name r\n ca_file /ca\n cert_file /c\n key_file /k\n }\n}")
	f.Add("lazarus_redis {\n tls\n}")
	f.Fuzz(func(t *testing.T, in string) {
		tokens, err := caddyfile.Tokenize([]byte(in), "Caddyfile")
		if err != nil {
			return
		}
		var m Module
		if err := m.UnmarshalCaddyfile(caddyfile.NewDispenser(tokens)); err != nil {
			return
		}
		_ = m.Validate()
		values := m.Address + m.Username + m.PasswordFile + m.KeyPrefix
		if m.TLS != nil {
			values += m.TLS.ServerName + m.TLS.CAFile + m.TLS.CertFile + m.TLS.KeyFile
		}
		if strings.ContainsAny(values, "\"\\`{}\n\r\t #") {
			return // not written back: quoting of such values is the tokenizer's business
		}
		var again Module
		if err := again.UnmarshalCaddyfile(caddyfile.NewTestDispenser(caddyfileText(m))); err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("%q parsed as %+v; written back as\n%s\nparsed as %+v, %v", in, m, caddyfileText(m), again, err)
		}
	})
}
