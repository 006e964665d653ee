package site

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// maxHrefLen bounds the length of a link target; longer links are ignored.
const maxHrefLen = 4096

// siteRoot is the public location of the site: which absolute URLs belong to
// it and how they map to site-relative paths.
type siteRoot struct {
	origin string // "scheme://host[:port]" of the site URL, lower case
	host   string // lower-case host name without a trailing dot
	port   string // "" for the scheme's default port
	prefix string // normalized escaped path of the root, ending in "/"
}

// newSiteRoot validates the site URL u.
func newSiteRoot(u *url.URL) (siteRoot, error) {
	if u == nil {
		return siteRoot{}, errors.New("site URL is missing")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Opaque != "" || u.Hostname() == "" {
		return siteRoot{}, fmt.Errorf("site URL %q is not an absolute http or https URL", u.Redacted())
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return siteRoot{}, fmt.Errorf("site URL %q has a query or fragment", u.Redacted())
	}
	host, port := hostPort(scheme, u)
	p := normalizePath(u.EscapedPath())
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return siteRoot{origin: scheme + "://" + strings.ToLower(u.Host), host: host, port: port, prefix: p}, nil
}

// hostPort returns the host name and port of u, normalized for comparison.
func hostPort(scheme string, u *url.URL) (host, port string) {
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port = u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	return host, port
}

// target is a URL of the site: its normalized site-relative path ("/",
// "/about/") and query ("?q=x", or "" without one).
type target struct {
	path  string
	query string
}

// String returns the site-relative URL of t.
func (t target) String() string { return t.path + t.query }

// locate returns the site-relative target of the absolute URL u, or false
// when u is not on the site: not http or https, another host or port, or a
// path outside the root. The root path without its final "/" is the root,
// as a server redirects it there.
func (s siteRoot) locate(u *url.URL) (target, bool) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Opaque != "" {
		return target{}, false
	}
	if host, port := hostPort(scheme, u); host != s.host || port != s.port {
		return target{}, false
	}
	p := normalizePath(u.EscapedPath())
	switch {
	case p+"/" == s.prefix:
		p = s.prefix
	case !strings.HasPrefix(p, s.prefix):
		return target{}, false
	}
	t := target{path: "/" + p[len(s.prefix):]}
	if u.ForceQuery || u.RawQuery != "" {
		t.query = "?" + u.RawQuery
	}
	return t, true
}

// offPath returns the normalized path of u when u is on the site's host
// (http or https, same host and port) but outside the site URL's path.
func (s siteRoot) offPath(u *url.URL) (string, bool) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Opaque != "" {
		return "", false
	}
	if host, port := hostPort(scheme, u); host != s.host || port != s.port {
		return "", false
	}
	p := normalizePath(u.EscapedPath())
	if p+"/" == s.prefix || strings.HasPrefix(p, s.prefix) {
		return "", false
	}
	return p, true
}

// abs returns the absolute URL of the normalized site-relative path rel.
func (s siteRoot) abs(rel string) (*url.URL, error) {
	return url.Parse(s.origin + s.fullPath(rel))
}

// fullPath returns the URL path, from the host's root, of the site-relative
// path rel.
func (s siteRoot) fullPath(rel string) string {
	return s.prefix + strings.TrimPrefix(rel, "/")
}

// normalizePath returns the escaped URL path p normalized (RFC 3986 §6.2.2):
// escapes normalized (see normalizeEscapes), then dot segments removed, so
// that "%2e%2e" counts as "..", as browsers resolve it. The empty path is
// "/".
func normalizePath(p string) string {
	if p == "" {
		return "/"
	}
	p = normalizeEscapes(p, "")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return removeDotSegments(p)
}

// normalizeEscapes returns s with its percent-encoding normalized: escapes
// of unreserved characters decoded, other escapes in upper case, and every
// byte that may not appear raw in a URL path escaped, including a "%" that
// does not start an escape. Bytes in keep are left raw too.
func normalizeEscapes(s, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				writeEscape(&b, v)
			}
			i += 2
		case isPathChar(c) || strings.IndexByte(keep, c) >= 0:
			b.WriteByte(c)
		default:
			writeEscape(&b, c)
		}
	}
	return b.String()
}

// removeDotSegments removes "." and ".." segments from the path p, which
// begins with "/" (RFC 3986 §5.2.4). ".." never climbs above the root.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

// cleanHref prepares a link target as a browser does before parsing it:
// leading and trailing spaces and controls trimmed, tabs and newlines
// removed, "\" made "/" before any query or fragment, and characters that
// may not appear raw in a URL escaped.
func cleanHref(h string) string {
	h = strings.Trim(h, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"+
		"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	var b strings.Builder
	inPath, inFragment := true, false
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
		case c == '?' && inPath || c == '#' && !inFragment:
			inPath, inFragment = false, c == '#'
			b.WriteByte(c)
		case c == '\\' && inPath:
			b.WriteByte('/')
		case c == '%' && (i+2 >= len(h) || !isHex(h[i+1]) || !isHex(h[i+2])):
			b.WriteString("%25")
		case c <= ' ' || c >= 0x7f || strings.IndexByte("\"#<>\\^`{|}", c) >= 0:
			writeEscape(&b, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parseHref parses a link target, or returns false if it is too long or
// unparsable.
func parseHref(h string) (*url.URL, bool) {
	if len(h) > maxHrefLen {
		return nil, false
	}
	u, err := url.Parse(cleanHref(h))
	if err != nil {
		return nil, false
	}
	return u, true
}

// selfLink reports whether the reference u refers to the document itself:
// empty or only a fragment.
func selfLink(u *url.URL) bool {
	return u.Scheme == "" && u.Opaque == "" && u.Host == "" && u.User == nil &&
		u.Path == "" && u.RawQuery == "" && !u.ForceQuery
}

// isPathChar reports whether c may appear raw in a normalized URL path:
// unreserved, sub-delims, ":", "@" and "/".
func isPathChar(c byte) bool {
	return isUnreserved(c) || strings.IndexByte("!$&'()*+,;=:@/", c) >= 0
}

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// writeEscape writes "%XX" for c.
func writeEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}
