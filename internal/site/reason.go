package site

import (
	"fmt"
	"strings"
)

// reason returns why the page file f, served at u, is not a carrier, or ""
// if it is one.
func (c *crawler) reason(f *fileState, u pageURL) string {
	var why []string
	if u.blocked != "" {
		why = append(why, "robots.txt disallows it for "+u.blocked)
	}
	if f.meta.noindex != "" {
		why = append(why, c.metaReason("noindex", f.meta.noindex))
	}
	if f.meta.noarchive != "" {
		why = append(why, c.metaReason("noarchive", f.meta.noarchive))
	}
	if f.size > c.cfg.maxBytes {
		why = append(why, fmt.Sprintf("too large (%s, limit %s)", humanSize(f.size), humanSize(c.cfg.maxBytes)))
	}
	return strings.Join(why, "; ")
}

// metaReason describes a robots meta directive given by <meta name=name>,
// naming the agent as Options.Agents spells it.
func (c *crawler) metaReason(directive, name string) string {
	if name == "robots" {
		return directive
	}
	for _, a := range c.cfg.agents {
		if strings.EqualFold(a, name) {
			name = a
		}
	}
	return directive + " for " + name
}

// humanSize formats a byte count: "512 bytes", "1.5 KiB", "1.2 MiB".
func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<30))) + " GiB"
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

// trimZero drops a ".0" decimal.
func trimZero(s string) string {
	return strings.TrimSuffix(s, ".0")
}
