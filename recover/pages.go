package recover

import (
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// savePage writes the newest capture of each page, without its Lazarus
// comments, under PagesDir: a browsable mirror of the client side. Pages
// at names recovery's own files use are not written; a page that cannot
// be written (a path that is a file and a directory on the site, a name
// too long) is a problem line, never the end of the recovery.
func (s *session) savePage(c source.Capture, page []byte) {
	if s.pages == nil {
		return
	}
	p := pagePath(c.URL)
	rel := strings.TrimPrefix(p, "/")
	if top, _, _ := strings.Cut(rel, "/"); s.reservedPage(top) {
		s.rep.problem("%s: page %.200q not saved: the name is recovery's own", c.Source, c.URL)
		return
	}
	if t, ok := s.saved[p]; ok && !c.Time.After(t) {
		return
	}
	if s.saved == nil {
		s.saved = map[string]time.Time{}
	}
	s.saved[p] = c.Time
	if err := rootfile.WriteAtomic(s.pages, rel, htmlblock.Strip(page), 0o644); err != nil {
		s.rep.problem("%s: page %.200q not saved: %v", c.Source, c.URL, err)
	}
}
