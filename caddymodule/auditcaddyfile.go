package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// unmarshalAuditOption reads the audit options (see UnmarshalCaddyfile):
// any of them turns the audit on.
func (h *Handler) unmarshalAuditOption(d *caddyfile.Dispenser) error {
	if h.Audit == nil {
		h.Audit = new(Audit)
	}
	a := h.Audit
	switch d.Val() {
	case "audit":
		args := d.RemainingArgs()
		switch {
		case len(args) == 0:
			return nil
		case len(args) != 2 || args[0] != "every":
			return d.Errf("audit: want 'audit' or 'audit every <duration>'")
		}
		dur, err := caddy.ParseDuration(args[1])
		if err != nil || dur <= 0 {
			return d.Errf("bad audit every %q: want a positive duration", args[1])
		}
		a.Every = caddy.Duration(dur)
		return nil
	case "audit_source":
		args := d.RemainingArgs()
		if len(args) == 0 {
			return d.ArgErr()
		}
		a.Sources = append(a.Sources, args...)
		return nil
	case "audit_key":
		return oneArg(d, func(v string) error { a.Key = v; return nil })
	case "audit_passphrase_file":
		return oneArg(d, func(v string) error { a.PassphraseFile = v; return nil })
	case "audit_site_url":
		return oneArg(d, func(v string) error { a.SiteURL = v; return nil })
	case "audit_contact":
		return oneArg(d, func(v string) error { a.Contact = v; return nil })
	}
	return d.Errf("unknown lazarus option %q", d.Val())
}
