package injector

import (
	"net/url"
	"sort"

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
		out = append(out, pageInfo{URL: "/" + f, File: f, Depth: -1, Reason: "not linked from the root page"})
	}
	return out, nil
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
