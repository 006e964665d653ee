package injector

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/site"
)

// pageInfo is one page inject may write: a carrier or not.
type pageInfo struct {
	URL     string
	File    string // relative to SiteDir; empty for URL-list (snippets) pages
	Depth   int
	Size    int64
	Carrier bool
	Reason  string
	Outside string // for an unlinked page: the path outside the site URL's path it is linked at, if any
}

// discover lists the pages: the static site's, or the given URL list.
func (o *Options) discover() ([]pageInfo, error) {
	if o.SiteDir == "" {
		return urlPages(o.URLs), nil
	}
	u, _ := url.Parse(o.SiteURL)
	s, err := site.Discover(o.SiteDir, site.Options{SiteURL: u, MaxPageBytes: int64(o.MaxPageBytes)})
	if err != nil {
		return nil, err
	}
	var out []pageInfo
	for _, p := range s.Pages {
		out = append(out, pageInfo{URL: p.URL, File: p.File, Depth: p.Depth, Size: p.Size, Carrier: p.Carrier, Reason: p.Reason})
	}
	for _, f := range s.Unlinked {
		p := pageInfo{URL: "/" + f, File: f, Depth: -1, Reason: "not linked from the root page", Outside: s.Outside[f]}
		if p.Outside != "" {
			p.Reason = fmt.Sprintf("linked as %s, outside the site URL's path %s", p.Outside, sitePath(u))
		}
		out = append(out, p)
	}
	return out, nil
}

// sitePath is the site URL's path, ending in "/".
func sitePath(u *url.URL) string {
	p := u.EscapedPath()
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// urlPages treats a URL list as carriers: "/" at depth 0, others at 1.
func urlPages(urls []string) []pageInfo {
	var out []pageInfo
	seen := map[string]bool{}
	for _, u := range urls {
		if seen[u] {
			continue
		}
		seen[u] = true
		d := 1
		if u == "/" {
			d = 0
		}
		out = append(out, pageInfo{URL: u, Depth: d, Carrier: true})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Depth != out[j].Depth {
			return out[i].Depth < out[j].Depth
		}
		return out[i].URL < out[j].URL
	})
	return out
}
