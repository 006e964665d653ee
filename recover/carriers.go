package recover

import (
	"context"
	"net/url"

	"github.com/lazarus-preserve/lazarus/internal/archive"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"
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

// resolve maps the carrier URLs a manifest for site names onto the site
// being recovered (see carrierOn); those it cannot are skipped with a
// problem line.
func (s *session) resolve(site string, urls []string) []string {
	made, err := url.Parse(site)
	if err != nil {
		return nil
	}
	asked := s.site
	if asked == nil {
		asked = made
	}
	var out []string
	for _, raw := range urls {
		if u := siteurl.CarrierOn(asked, made, raw); u != nil {
			out = append(out, u.String())
		} else {
			s.rep.problem("carrier %.200q is not on the site %s: not listed", raw, asked.Host)
		}
	}
	return out
}

// listPages asks a source that lists page by page for the carriers of
// the target generation, each once.
func (s *session) listPages(ctx context.Context, src source.Source, urls []string) {
	pl, ok := src.(source.PageLister)
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
		err := pl.ListPage(ctx, abs, func(c source.Capture) error {
			s.enqueue(c, src)
			s.rep.Captures++
			sr.Captures++
			return nil
		})
		if err != nil && ctx.Err() == nil {
			s.rep.problem("%s: listing %s: %v", src.Name(), abs, err)
		}
	}
}
