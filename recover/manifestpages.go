package recover

import (
	"net/url"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/site"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// maxManifestPages bounds the pages besides the root that recovery
// watches for a newer manifest that each source adds (see manifestPages),
// and so the captures that doing so costs: at most one per page and
// source.
const maxManifestPages = 256

// manifestPages are the pages besides the root that may carry a newer
// generation's manifest than the target's: inject puts every
// generation's manifest on the root page and on pages one link away from
// it (FORMAT.md §2; a light plan on only a few of them, not always the
// carriers of the previous generation's blocks, which make-before-break
// keeps on the pages). They are the pages a verified manifest was found
// on and the pages a root capture carrying a verified manifest links to
// (a squatter's own page, without one, adds nothing), at most
// maxManifestPages of each from each source: an archive serving a
// replayed manifest beside forged links, or on made-up pages, uses up
// its own share, not the others'.
type manifestPages struct {
	found, linked map[string]bool
	// shares counts, by set and source, the pages each source added.
	shares map[string]int
	// newest is each source's newest listed capture of each page (by
	// newestKey): one a page and source, however many captures a listing
	// gives the same time, and one source's listing (a capture dated in
	// the future) never hides another's newest.
	newest map[string]source.Capture
	// rootShown is, by generation time (UnixNano), the newest dated
	// capture of the root page that carried that generation's manifest.
	rootShown map[int64]time.Time
}

// has reports whether a page may carry a manifest.
func (m *manifestPages) has(p string) bool { return m.found[p] || m.linked[p] }

// newestKey is the key of a page's newest capture in a source.
func newestKey(src, p string) string { return src + "\x00" + p }

// listed notes a listed capture: the first listed of a source's newest
// captures of its page (a zero time, the live site's, is newer than any).
func (m *manifestPages) listed(c source.Capture) {
	if m.newest == nil {
		m.newest = map[string]source.Capture{}
	}
	k := newestKey(c.Source, pagePath(c.URL))
	if n, ok := m.newest[k]; !ok || !n.Time.IsZero() && (c.Time.IsZero() || c.Time.After(n.Time)) {
		m.newest[k] = c
	}
}

// isNewest reports whether c is its source's newest listed capture of
// page p.
func (m *manifestPages) isNewest(p string, c source.Capture) bool {
	n, ok := m.newest[newestKey(c.Source, p)]
	return ok && n.Locator == c.Locator && n.URL == c.URL && n.Time.Equal(c.Time) && n.Digest == c.Digest
}

// watched reports whether a capture could reveal a manifest newer than
// the target generation made at gen, that reading the root page did not:
// it is its source's newest listed capture of a manifest page, made after that
// generation and after the newest dated root capture that carried its
// manifest. A root page captured later than a one-hop page shows the
// generation current then, so only newer captures of one-hop pages are
// read: none, when the root is archived as often as the rest.
func (m *manifestPages) watched(p string, c source.Capture, gen time.Time) bool {
	if !m.has(p) || !m.isNewest(p, c) {
		return false
	}
	t := captured(c)
	return t.After(gen) && t.After(m.rootShown[gen.UnixNano()])
}

// noteManifestPages records what a taken capture (its bytes page, its report pr) says
// of manifest pages, and reports whether the set of pages changed.
func (s *session) noteManifestPages(c source.Capture, page []byte, pr codec.PageReport) bool {
	m := &s.mpages
	changed := false
	for _, r := range append([]codec.PageReport{pr}, pr.Released...) {
		if len(r.Manifests) == 0 {
			continue
		}
		p := pagePath(r.From.URL)
		if isRoot(p, s.site == nil) {
			changed = m.shown(r) || changed
			continue
		}
		changed = m.add(&m.found, "found", r.From.Source, p) || changed
	}
	if len(pr.Manifests) == 0 || !isRoot(pagePath(c.URL), s.site == nil) {
		return changed
	}
	for _, l := range site.Inspect(page, pageURL(c.URL)).Links {
		changed = m.add(&m.linked, "linked", c.Source, pagePath(l)) || changed
	}
	return changed
}

// shown notes the manifests a root capture carried, and reports whether
// that changed anything.
func (m *manifestPages) shown(r codec.PageReport) bool {
	if r.From.Time.IsZero() {
		return false // the live site: a squatter may serve an old root page now
	}
	if m.rootShown == nil {
		m.rootShown = map[int64]time.Time{}
	}
	changed := false
	for _, mf := range r.Manifests {
		k := mf.Manifest.Time.UnixNano()
		if r.From.Time.After(m.rootShown[k]) {
			m.rootShown[k], changed = r.From.Time, true
		}
	}
	return changed
}

// add adds p, found by source src, to a set (named name) of pages, at
// most maxManifestPages of them from each source, and reports whether it
// was added.
func (m *manifestPages) add(set *map[string]bool, name, src, p string) bool {
	if *set == nil {
		*set = map[string]bool{}
	}
	if m.shares == nil {
		m.shares = map[string]int{}
	}
	share := name + "\x00" + src
	if (*set)[p] || m.shares[share] >= maxManifestPages {
		return false
	}
	(*set)[p] = true
	m.shares[share]++
	return true
}

// pageURL is the absolute URL a capture's links resolve against; a
// mirror's path (no host) is put on a placeholder host, so its links keep
// their host directory.
func pageURL(raw string) *url.URL {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u
	}
	return &url.URL{Scheme: "http", Host: "mirror.invalid", Path: pagePath(raw)}
}
