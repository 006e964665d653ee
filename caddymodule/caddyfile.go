package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("lazarus", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("lazarus", httpcaddyfile.After, "encode")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. In a site
// block Caddy reads a first argument starting with "/" as a path matcher,
// so give an absolute bundle path as "lazarus * /srv/bundle" or in the
// block form:
//
//	lazarus [<bundle>] {
//	    bundle <dir>
//	    page_budget <size>        # bytes: 262144 or 256KiB
//	    max_buffer <size>
//	    query_carriers
//	    reload_interval <duration>
//	    overlap <duration>        # previous generation rides along; default 14d
//	    crawlers <ua-substring>...  # archive crawlers; default archive.org_bot ia_archiver CCBot heritrix "Internet Archive"
//	    crawl_session <duration>  # no switch until a crawler has been quiet this long; default 10m
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		h.Bundle = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if err := h.unmarshalOption(d); err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) unmarshalOption(d *caddyfile.Dispenser) error {
	switch d.Val() {
	case "bundle":
		return oneArg(d, func(v string) error { h.Bundle = v; return nil })
	case "page_budget":
		return oneArg(d, func(v string) (err error) { h.PageBudget, err = parseSize(d, v); return })
	case "max_buffer":
		return oneArg(d, func(v string) (err error) { h.MaxBuffer, err = parseSize(d, v); return })
	case "query_carriers":
		if d.NextArg() {
			return d.ArgErr()
		}
		h.QueryCarriers = true
		return nil
	case "reload_interval":
		return durationArg(d, &h.ReloadInterval)
	case "overlap":
		return durationArg(d, &h.Overlap)
	case "crawl_session":
		return durationArg(d, &h.CrawlSession)
	case "crawlers":
		h.Crawlers = d.RemainingArgs()
		if len(h.Crawlers) == 0 {
			return d.ArgErr()
		}
		return nil
	default:
		return d.Errf("unknown lazarus option %q", d.Val())
	}
}

// durationArg reads the option's single positive duration into dst.
func durationArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	name := d.Val()
	return oneArg(d, func(v string) error {
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur <= 0 {
			return d.Errf("bad %s %q: want a positive duration", name, v)
		}
		*dst = caddy.Duration(dur)
		return nil
	})
}

// oneArg passes the option's single argument to set.
func oneArg(d *caddyfile.Dispenser, set func(string) error) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	return set(v)
}

// parseSize reads a positive byte count: digits or a size like 256KiB.
func parseSize(d *caddyfile.Dispenser, v string) (int64, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		return n, nil
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n == 0 || n > 1<<40 {
		return 0, d.Errf("bad size %q: want a positive number of bytes such as 262144 or 256KiB", v)
	}
	return int64(n), nil
}
