package recover

import (
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// savePage writes the newest capture of each page, without its Lazarus
// comments, under PagesDir: a browsable mirror of the client side.
func (s *session) savePage(c Capture, page []byte) error {
	if s.pages == nil {
		return nil
	}
	p := pagePath(c.URL)
	if t, ok := s.saved[p]; ok && !c.Time.After(t) {
		return nil
	}
	if s.saved == nil {
		s.saved = map[string]time.Time{}
	}
	s.saved[p] = c.Time
	return writeAtomic(s.pages, strings.TrimPrefix(p, "/"), htmlblock.Strip(page), 0o644)
}
