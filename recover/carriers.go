package recover

import (
	"context"
	"net/url"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/archive"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// addManifest keeps a verified manifest and, if it is the newest, makes its
// carriers the next captures to fetch.
func (s *session) addManifest(ctx context.Context, m *manifest.Signed) {
	for _, old := range s.manifests {
		if old.Digest == m.Digest {
			return
		}
	}
	s.manifests = append(s.manifests, m)
	if !s.o.wants(m) || !m.Manifest.Time.After(s.genTime) && s.carriers != nil {
		return
	}
	s.genTime, s.carriers = m.Manifest.Time, map[string]bool{}
	urls := []string{}
	for _, c := range m.Manifest.Listing.Carriers {
		s.carriers[pagePath(c.URL)] = true
		urls = append(urls, c.URL)
	}
	if list, err := s.a.Listing(m); err == nil {
		for _, c := range list.Carriers {
			s.carriers[pagePath(c.URL)] = true
			urls = append(urls, c.URL)
		}
	}
	s.wanted = s.resolve(m.Manifest.Site, urls)
	for _, src := range s.opened {
		s.listPages(ctx, src, s.wanted)
	}
	s.sort()
}

// resolve makes carrier URLs absolute against the manifest's site and
// keeps those on the site being recovered (see carrierOnSite).
func (s *session) resolve(site string, urls []string) []string {
	base, err := url.Parse(site)
	if err != nil {
		return nil
	}
	var out []string
	for _, u := range urls {
		ref, err := url.Parse(u)
		if err != nil {
			continue
		}
		if abs := base.ResolveReference(ref).String(); s.carrierOnSite(base, abs) {
			out = append(out, abs)
		}
	}
	return out
}

// listPages asks a source that lists page by page for the carriers of
// the target generation, each once.
func (s *session) listPages(ctx context.Context, src Source, urls []string) {
	pl, ok := src.(PageLister)
	if !ok {
		return
	}
	sr := s.rep.source(src)
	for _, abs := range urls {
		if s.listed[src.Name()+"\x00"+abs] {
			continue
		}
		s.listed[src.Name()+"\x00"+abs] = true
		if sr.Captures >= archive.DefaultMaxRows { // one allowance for all the source's pages
			s.rep.problem("%s: listing %s: skipped, the source already listed %d captures", src.Name(), abs, sr.Captures)
			continue
		}
		err := pl.ListPage(ctx, abs, func(c Capture) error {
			s.queue = append(s.queue, queued{c, src})
			s.rep.Captures++
			sr.Captures++
			return nil
		})
		if err != nil && ctx.Err() == nil {
			s.rep.problem("%s: listing %s: %v", src.Name(), abs, err)
		}
	}
}

// carrierOnSite reports whether a carrier URL named by a manifest may be
// listed page by page: an http(s) URL on the site being recovered
// (Options.SiteURL, else the manifest's own site), same host ("www." aside)
// and port. Manifests choose these URLs, unsigned ones anybody, and the
// live source fetches them as they are, so others are skipped with a
// problem line.
func (s *session) carrierOnSite(base *url.URL, abs string) bool {
	site := s.site
	if site == nil {
		site = base
	}
	if u, err := url.Parse(abs); err == nil && onSite(site, u) {
		return true
	}
	s.rep.problem("carrier %.200q is not on the site %s: not listed", abs, site.Host)
	return false
}

// onSite reports whether u is an http(s) URL on site's host and port; a
// leading "www." is ignored and a missing port means the scheme's default.
func onSite(site, u *url.URL) bool {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return false
	}
	bare := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	return u.Hostname() != "" && bare(u.Hostname()) == bare(site.Hostname()) && u.Port() == site.Port()
}
