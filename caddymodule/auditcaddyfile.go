package caddymodule

import (
	"strconv"

	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// unmarshalAuditOption reads the audit options and the capture request
// options (see UnmarshalCaddyfile): any of them turns the audit on.
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
	case "capture_requests", "capture_spn", "capture_rate", "capture_margin", "capture_wait":
		return unmarshalCaptureOption(d, a)
	}
	return d.Errf("unknown lazarus option %q", d.Val())
}

// unmarshalCaptureOption reads capture_requests <access-key-file>,
// capture_spn <base>, capture_rate <N/min>, capture_margin <n> (0
// asks for k blocks per stripe exactly) and capture_wait <duration>.
func unmarshalCaptureOption(d *caddyfile.Dispenser, a *Audit) error {
	if a.CaptureRequests == nil {
		a.CaptureRequests = new(CaptureRequests)
	}
	c := a.CaptureRequests
	switch d.Val() {
	case "capture_requests":
		return oneArg(d, func(v string) error { c.AccessKeyFile = v; return nil })
	case "capture_spn":
		return oneArg(d, func(v string) error { c.SPN = v; return nil })
	case "capture_rate":
		return oneArg(d, func(v string) error {
			if _, err := spn.ParseLimit(v); err != nil {
				return d.Errf("bad capture_rate %q: want a rate such as 12/min, 1/s or 100/h", v)
			}
			c.Rate = v
			return nil
		})
	case "capture_wait":
		return oneArg(d, func(v string) error {
			w, err := caddy.ParseDuration(v)
			if err != nil || w < 0 || w > maxCaptureWait {
				return d.Errf("bad capture_wait %q: want a duration from 0 to 24h, such as 1h", v)
			}
			c.Wait = caddy.Duration(w)
			return nil
		})
	}
	return oneArg(d, func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 255 {
			return d.Errf("bad capture_margin %q: want a whole number of blocks from 0 to 255", v)
		}
		c.Margin = n
		if n == 0 {
			c.Margin = capture.NoMargin
		}
		return nil
	})
}
