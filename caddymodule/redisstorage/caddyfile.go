package redisstorage

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile reads the storage's global option:
//
//	storage lazarus_redis [<address>] {
//	    address       <host:port>
//	    username      <user>
//	    password_file <path>
//	    db            <number>
//	    key_prefix    <prefix>
//	    lock_ttl      <duration>
//	    dial_timeout  <duration>
//	    tls [{
//	        server_name <name>
//	        ca_file     <path>
//	        cert_file   <path>
//	        key_file    <path>
//	    }]
//	}
//
// A bare tls connects with TLS, checking the server's certificate against
// the system's roots and the address's host.
func (m *Module) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the module name
	if d.NextArg() {
		m.Address = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if err := m.setting(d); err != nil {
			return err
		}
	}
	return nil
}

// setting reads one subdirective.
func (m *Module) setting(d *caddyfile.Dispenser) error {
	name := d.Val()
	if name == "tls" {
		return m.tlsSettings(d)
	}
	var v string
	if !d.Args(&v) || d.NextArg() {
		return d.ArgErr()
	}
	switch name {
	case "address":
		m.Address = v
	case "username":
		m.Username = v
	case "password_file":
		m.PasswordFile = v
	case "key_prefix":
		m.KeyPrefix = v
	case "db":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return d.Errf("db %q: want a number 0 or more", v)
		}
		m.DB = n
	case "lock_ttl", "dial_timeout":
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur <= 0 {
			return d.Errf("%s %q: want a positive duration", name, v)
		}
		if name == "lock_ttl" {
			m.LockTTL = caddy.Duration(dur)
		} else {
			m.DialTimeout = caddy.Duration(dur)
		}
	default:
		return d.Errf("unknown redis storage setting %q", name)
	}
	return nil
}

// tlsSettings reads the tls subdirective and its block, if any.
func (m *Module) tlsSettings(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	m.TLS = &TLS{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		var v string
		if !d.Args(&v) || d.NextArg() {
			return d.ArgErr()
		}
		switch name {
		case "server_name":
			m.TLS.ServerName = v
		case "ca_file":
			m.TLS.CAFile = v
		case "cert_file":
			m.TLS.CertFile = v
		case "key_file":
			m.TLS.KeyFile = v
		default:
			return d.Errf("unknown redis storage tls setting %q", name)
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Module)(nil)
