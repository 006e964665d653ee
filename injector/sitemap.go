package injector

import (
	"fmt"
	"os"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/site"
)

// announce keeps the site's sitemap and robots.txt line when
// Options.Sitemap asks (site.Announce): every linked page, with its
// file's modification time as lastmod (inject gives the pages whose
// blocks changed a new one). It writes nothing when nothing changed. A
// failure is a warning: the pages are written.
func (r *run) announce() {
	if !r.o.Sitemap || r.o.SiteDir == "" {
		return
	}
	pages := map[string]time.Time{}
	for _, p := range r.pages {
		if p.File == "" || p.Depth < 0 {
			continue
		}
		if fi, err := os.Stat(r.pagePath(p)); err == nil {
			pages[p.URL] = fi.ModTime()
		}
	}
	a, err := site.Announce(r.o.SiteDir, mustURL(r.o.SiteURL), pages)
	if err != nil {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the sitemap was not written: %v", err))
		return
	}
	r.res.Sitemap = a.Sitemap
	if a.Left > 0 {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the sitemap lists %d pages, the most one sitemap may; %d left out", site.MaxSitemapURLs, a.Left))
	}
}
