package caddymodule

import (
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
	"github.com/lazarus-preserve/lazarus/injector"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("lazarus", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("lazarus", httpcaddyfile.After, "encode")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	if err := m.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	if m.Build != nil && m.Build.SiteURL == "" {
		u, err := blockSiteURL(h)
		if err != nil {
			h.Reset() // point the error at the directive
			h.Next()
			return nil, h.Errf("site_url is required: %v; give site_url, the site's public URL", err)
		}
		m.Build.SiteURL = u
	}
	return m, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. In a site
// block Caddy reads a first argument starting with "/" as a path matcher,
// so give an absolute bundle path as "lazarus * /srv/bundle" or in the
// block form. Either a bundle, or what to build generations from:
//
//	lazarus [<bundle>] {
//	    bundle <dir>                # generations written by lazarus inject --bundle
//
//	    source <path> [<segment>]   # or build them here, in the background (repeatable)
//	    exclude <glob>...           # gitignore-style, relative to each source
//	    dump <name> <command>...    # preserve a command's output (run with sh -c; see below)
//	    volatile <name> <regexp>... # lines of dump <name> that change without the data changing (below)
//	    dump_timeout <duration>     # default 10m
//	    key <server.key>            # or: passphrase_file <file>
//	    site_url <url>              # the site's public URL; defaults to the site address's
//	    every <duration>            # look for changes this often; default 1h
//	    carriers <n>                # pages planned for until the site's are learned; default 16
//	    max_block_bytes <size>      # default 48KiB
//	    target <p>                  # recoverability each generation is planned for; default 0.999
//	    redundancy auto|max|<ratio> # auto: fewest bytes reaching target; max: fill pages; or fixed parity per data block
//
//	    name <name>                 # state in Caddy's storage: lazarus/<name>/
//	    page_budget <size>          # bytes: 262144 or 256KiB
//	    copies <n>                  # pages per block; default 1 (3 with redundancy max, then table replicas)
//	    notice "<text with {date}>" # visible line kept in step with the page's blocks
//	    max_page_bytes <size>       # pages with blocks stay below; default 960KiB
//	    max_buffer <size>           # most bytes held (never more than max_page_bytes); default 4MiB
//	    query_carriers
//	    reload_interval <duration>
//	    overlap <duration>|off      # previous generation rides along; default 14d; off (or 0) disables
//	    crawlers <ua-substring>...  # archive crawlers; default archive.org_bot ia_archiver CCBot heritrix "Internet Archive"
//	    crawl_session <duration>    # no switch until a crawler has been quiet this long; default 10m
//	    max_crawl_hold <duration>   # but crawlers hold a switch at most this long; default 1h
//
//	    audit [every <duration>]    # audit the archives (lazarus status) into metrics; default every 24h
//	    audit_source <spec>         # repeatable: wayback[=BASE], commoncrawl[=INDEX[,DATA]], cdx=URL[,REPLAY], pywb=URL[,REPLAY], ...
//	    audit_key <server.key>      # or audit_passphrase_file <file>; default the build's; needed with a bundle
//	    audit_site_url <url>        # default site_url, else the generation's
//	    audit_contact <email>       # added to the User-Agent archives see
//	    max_overlap <duration>      # with audit, the previous generation rides until an audit shows the new one safe, at most this long; default 90d
//
//	    capture_requests <keyfile>  # after each new generation, ask Save Page Now (ACCESSKEY:SECRET file; turns audit on)
//	    capture_spn <url>           # Save Page Now's base URL; default https://web.archive.org
//	    capture_rate <n>/min        # most submissions; default 12/min
//	    capture_margin <n>          # blocks wanted beyond k per stripe; default 2
//	    capture_wait <duration>     # keep asking again for what fails, up to 24h; default 0 (once)
//	}
//
// A dump's command is run with sh -c. Given as one argument, that argument
// is the command line: dump db "mysqldump shop | gzip". Given as several,
// they are joined with spaces, each quoted argument single-quoted for sh
// so that it stays one word, taken literally (no $VAR, globs or
// backslash escapes: dump db printf "CREATE TABLE t(x);\n" runs printf
// with that one argument), and unquoted ones as written, so shell syntax
// there works: dump db mysqldump shop | gzip.
//
// volatile, after the dump it names, gives regular expressions (Go
// syntax) for lines of its output that change while the data does not
// (a cache's rows, a timestamp): they are left out when the output is
// compared with the last one, so a build whose dump changed only there
// makes no new generation. The output is preserved byte for byte.
//
// When building, site_url defaults to the URL of the site block's address
// if the block names exactly one host, without wildcard or path: its
// scheme, else http for port 80 (or the http_port option) and https
// otherwise; its port unless the scheme's default. Blocks with several
// addresses, a wildcard or no host (":8080") need site_url.
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
	if h.MaxOverlap != 0 && h.Audit == nil {
		return d.Err("max_overlap bounds a ride that audits end: it needs audit; without it, overlap alone decides")
	}
	return nil
}

func (h *Handler) unmarshalOption(d *caddyfile.Dispenser) error {
	switch d.Val() {
	case "bundle":
		return oneArg(d, func(v string) error { h.Bundle = v; return nil })
	case "page_budget":
		return oneArg(d, func(v string) (err error) { h.PageBudget, err = parseSize(d, v); return })
	case "max_page_bytes":
		return oneArg(d, func(v string) (err error) { h.MaxPageBytes, err = parseSize(d, v); return })
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
		return overlapArg(d, &h.Overlap)
	case "crawl_session":
		return durationArg(d, &h.CrawlSession)
	case "max_crawl_hold":
		return durationArg(d, &h.MaxCrawlHold)
	case "crawlers":
		h.Crawlers = d.RemainingArgs()
		if len(h.Crawlers) == 0 {
			return d.ArgErr()
		}
		return nil
	case "name":
		return oneArg(d, func(v string) error { h.Name = v; return nil })
	case "notice":
		return oneArg(d, func(v string) error { h.Notice = v; return nil })
	case "copies":
		return oneArg(d, func(v string) (err error) { h.Copies, err = parseCount(d, v); return })
	case "redundancy":
		return oneArg(d, func(v string) error { return h.setRedundancyWord(d, v) })
	case "max_overlap":
		return durationArg(d, &h.MaxOverlap)
	case "audit", "audit_source", "audit_key", "audit_passphrase_file", "audit_site_url", "audit_contact",
		"capture_requests", "capture_spn", "capture_rate", "capture_margin", "capture_wait":
		return h.unmarshalAuditOption(d)
	default:
		return h.unmarshalBuildOption(d)
	}
}

// unmarshalBuildOption reads the options of self-building mode.
func (h *Handler) unmarshalBuildOption(d *caddyfile.Dispenser) error {
	if h.Build == nil {
		h.Build = new(Build)
	}
	b := h.Build
	switch d.Val() {
	case "source":
		args := d.RemainingArgs()
		if len(args) < 1 || len(args) > 2 {
			return d.ArgErr()
		}
		b.Sources = append(b.Sources, Include{Path: args[0], Segment: append(args[1:], "")[0]})
	case "exclude":
		args := d.RemainingArgs()
		if len(args) == 0 {
			return d.ArgErr()
		}
		b.Excludes = append(b.Excludes, args...)
	case "dump":
		if !d.NextArg() {
			return d.ArgErr()
		}
		name := d.Val()
		args := d.RemainingArgsAsTokens()
		if len(args) == 0 {
			return d.ArgErr()
		}
		b.Dumps = append(b.Dumps, Dump{Name: name, Command: shellCommand(args)})
	case "volatile":
		args := d.RemainingArgs()
		if len(args) < 2 {
			return d.ArgErr()
		}
		i := slices.IndexFunc(b.Dumps, func(dump Dump) bool { return dump.Name == args[0] })
		if i < 0 {
			return d.Errf("volatile %s: no dump named %s above it", args[0], args[0])
		}
		b.Dumps[i].Volatile = append(b.Dumps[i].Volatile, args[1:]...)
	case "dump_timeout":
		return durationArg(d, &b.DumpTimeout)
	case "key":
		return oneArg(d, func(v string) error { b.Key = v; return nil })
	case "passphrase_file":
		return oneArg(d, func(v string) error { b.PassphraseFile = v; return nil })
	case "site_url":
		return oneArg(d, func(v string) error { b.SiteURL = v; return nil })
	case "every":
		return durationArg(d, &b.Every)
	case "carriers":
		return oneArg(d, func(v string) (err error) { b.Carriers, err = parseCount(d, v); return })
	case "max_block_bytes":
		return oneArg(d, func(v string) error { n, err := parseSize(d, v); b.MaxBlockBytes = int(n); return err })
	case "target":
		return oneArg(d, func(v string) error {
			t, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
			if strings.HasSuffix(v, "%") {
				t /= 100
			}
			if err != nil || !(t > 0 && t < 1) {
				return d.Errf("bad target %q: want a probability in (0, 1) such as 0.999 or 99.9%%", v)
			}
			b.Target = t
			return nil
		})
	default:
		return d.Errf("unknown lazarus option %q", d.Val())
	}
	return nil
}

// shellCommand is the sh command line of a dump's arguments: a single
// argument as written; several joined with spaces, the quoted ones quoted
// for sh so each stays one literal word.
func shellCommand(args []caddyfile.Token) string {
	if len(args) == 1 {
		return args[0].Text
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = a.Text
		if a.Quoted() {
			words[i] = shellQuote(a.Text)
		}
	}
	return strings.Join(words, " ")
}

// shellQuote makes s one literal sh word: single-quoted, each ' in s
// closing the quote, escaped as \' and opening a new quote.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseCount reads a positive whole number.
func parseCount(d *caddyfile.Dispenser, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 1<<20 {
		return 0, d.Errf("bad %s %q: want a positive whole number", d.Val(), v)
	}
	return n, nil
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

// overlapArg reads overlap: a positive duration, or off (also 0 or a
// negative duration), which disables it: -1 in JSON, as 0 there means
// the default.
func overlapArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	return oneArg(d, func(v string) error {
		if v == "off" {
			*dst = -1
			return nil
		}
		dur, err := caddy.ParseDuration(v)
		if err != nil {
			return d.Errf("bad overlap %q: want a duration such as 14d, or off", v)
		}
		*dst = caddy.Duration(dur)
		if dur <= 0 {
			*dst = -1
		}
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

// setRedundancyWord reads redundancy auto|max|<ratio>: max fills pages
// (Handler.Fill, in bundle mode too); a ratio fixes the parity of
// generations built here.
func (h *Handler) setRedundancyWord(d *caddyfile.Dispenser, v string) error {
	switch v {
	case injector.RedundancyAuto:
		return nil
	case injector.RedundancyMax:
		h.Fill = true
		return nil
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || r <= 0 || r > 255 {
		return d.Errf("bad redundancy %q: want auto, max or a ratio in (0, 255] such as 1.0", v)
	}
	if h.Build == nil {
		h.Build = new(Build)
	}
	h.Build.Redundancy = r
	return nil
}
