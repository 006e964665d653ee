package archivetest

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// timemapPath matches /timemap/link/{original} and the later pages
// /timemap/page{N}/link/{original} (N ≥ 1; page 1 is the first).
var timemapPath = regexp.MustCompile(`^/timemap/(?:page([0-9]{1,9})/)?link/`)

// serveTimeMap answers a TimeMap page in application/link-format, or 404
// when the URL has no captures or the page does not exist.
func (s *Server) serveTimeMap(w http.ResponseWriter, r *http.Request) {
	m := timemapPath.FindStringSubmatch(r.RequestURI)
	if m == nil {
		http.NotFound(w, r)
		return
	}
	original := r.RequestURI[len(m[0]):]
	page := 1
	if m[1] != "" {
		page, _ = strconv.Atoi(m[1])
	}
	rows := s.exactRows(original)
	size := s.cfg.TimeMapPageSize
	if size == 0 {
		size = max(len(rows), 1)
	}
	pages := (len(rows) + size - 1) / size
	if len(rows) == 0 || page < 1 || page > pages {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/link-format")
	w.Write([]byte(s.timemapPage(original, rows, page, pages, size)))
}

// exactRows returns the captures of exactly one URL, oldest first.
func (s *Server) exactRows(original string) []row {
	m := newMatcher(original, "exact")
	var out []row
	for _, r := range s.rows {
		if m.match(r.URL) {
			out = append(out, r)
		}
	}
	return out
}

// timemapURL returns the URI-T of one page.
func (s *Server) timemapURL(original string, page int) string {
	if page == 1 {
		return s.URL + "/timemap/link/" + original
	}
	return fmt.Sprintf("%s/timemap/page%d/link/%s", s.URL, page, original)
}

// timemapPage renders one page the way IA does: original, self, timegate,
// links to the neighbouring pages, then one memento per line.
func (s *Server) timemapPage(original string, rows []row, page, pages, size int) string {
	lo, hi := (page-1)*size, min(page*size, len(rows))
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", rows[0].URL)
	fmt.Fprintf(&b, "<%s>; rel=\"self\"; type=\"application/link-format\"; from=\"%s\"; until=\"%s\",\n",
		s.timemapURL(original, page), rows[lo].Time.Format(http.TimeFormat), rows[hi-1].Time.Format(http.TimeFormat))
	fmt.Fprintf(&b, "<%s>; rel=\"timegate\",\n", s.URL+"/web/")
	for _, p := range []int{page - 1, page + 1} {
		if p >= 1 && p <= pages {
			fmt.Fprintf(&b, "<%s>; rel=\"timemap\"; type=\"application/link-format\"; from=\"%s\",\n",
				s.timemapURL(original, p), rows[(p-1)*size].Time.Format(http.TimeFormat))
		}
	}
	for i := lo; i < hi; i++ {
		rel := "memento"
		switch {
		case i == 0:
			rel = "first memento"
		case i == len(rows)-1:
			rel = "last memento"
		}
		sep := ",\n"
		if i == hi-1 {
			sep = "\n"
		}
		fmt.Fprintf(&b, "<%s>; rel=\"%s\"; datetime=\"%s\"%s", s.mementoURL(rows[i]), rel, rows[i].Time.Format(http.TimeFormat), sep)
	}
	return b.String()
}
