package caddymodule

import (
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/site"
)

// maxRootLinks bounds the links of "/" kept for placer.noteRoot, which
// picks at most maxManifestPages of them.
const maxRootLinks = 1024

// inspection is what the module keeps of a page it inspected: small, so
// the cache of them stays small whatever the pages hold.
type inspection struct {
	excluded string     // why archives must not keep the page, "" if nothing
	links    [][16]byte // the placement keys it links to, by keyHash
	root     []string   // for "/", the keys it links to (at most maxRootLinks)
	queries  [][16]byte // links with a query string (at most maxQueryLinks), by keyHash
}

// size is the memory an inspection takes, roughly.
func (in inspection) size() int {
	n := 64 + len(in.excluded) + 16*len(in.links) + 16*len(in.queries)
	for _, l := range in.root {
		n += 16 + len(l)
	}
	return n
}

// newInspectCache returns a cache of inspections by inspectKey, bounded in
// bytes.
func newInspectCache(limit int) *fifoCache[[sha256.Size]byte, inspection] {
	return newFIFOCache[[sha256.Size]byte](limit, inspection.size)
}

// inspectKey names a page version: its URL (links resolve against it)
// and the SHA-256 of its body.
func inspectKey(u *url.URL, sum [sha256.Size]byte) [sha256.Size]byte {
	k := sha256.New()
	k.Write([]byte(u.String()))
	k.Write([]byte{0})
	k.Write(sum[:])
	return [sha256.Size]byte(k.Sum(nil))
}

// inspect returns what the page at key (its body hashed to sum) says of
// archiving and links, cached by URL and body.
func (h *Handler) inspect(r *http.Request, key string, sum [sha256.Size]byte, body []byte) inspection {
	u := pageURL(r, key)
	ck := inspectKey(u, sum)
	if in, ok := h.inspected.get(ck); ok {
		return in
	}
	in := inspectPage(body, u, key == "/")
	h.inspected.put(ck, in)
	return in
}

// pageURL is the absolute URL of the page at key, as the client asked
// for it.
func pageURL(r *http.Request, key string) *url.URL {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	p, q, _ := strings.Cut(key, "?")
	return &url.URL{Scheme: scheme, Host: r.Host, Path: p, RawQuery: q}
}

// inspectPage scans a page: its robots directives and its links as
// placement keys (the root's also as strings).
func inspectPage(body []byte, u *url.URL, root bool) inspection {
	found := site.Inspect(body, u)
	in := inspection{excluded: found.Excluded}
	seen := map[string]bool{}
	for _, l := range found.Links {
		k, ok := linkKey(l)
		if !ok || seen[k] {
			continue
		}
		seen[k] = true
		in.links = append(in.links, keyHash(k))
		if root && len(in.root) < maxRootLinks {
			in.root = append(in.root, k)
		}
	}
	for _, l := range found.URLs {
		if strings.Contains(l, "?") && len(in.queries) < maxQueryLinks {
			in.queries = append(in.queries, keyHash(l))
		}
	}
	return in
}

// excluded says why a page must not carry blocks: its robots meta tags
// (in.excluded) or an X-Robots-Tag header with noindex, noarchive, none
// or nocache (site.HeaderExcluded).
func excluded(hdr http.Header, in inspection) string {
	if in.excluded != "" {
		return in.excluded
	}
	if site.HeaderExcluded(hdr) != "" { // the same reading verify gives the header
		return "noarchive"
	}
	return ""
}
