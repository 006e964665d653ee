package archivetest

import (
	"bytes"
	"net/http"
	"regexp"
	"time"
)

// ToolbarBegin and ToolbarEnd delimit the block the Wayback inserts after
// <body> in rewritten (non-id_) replays.
const (
	ToolbarBegin = "<!-- BEGIN WAYBACK TOOLBAR INSERT -->"
	ToolbarEnd   = "<!-- END WAYBACK TOOLBAR INSERT -->"
)

// replayPath matches "{timestamp}{modifier}" in /web/{timestamp}{modifier}/{original}.
var replayPath = regexp.MustCompile(`^/web/([0-9]{1,14})([a-z]{2}_)?/`)

// serveReplay answers /web/{timestamp}{modifier}/{original}: the capture
// at exactly that time, or a 302 to the nearest capture of the URL.
func (s *Server) serveReplay(w http.ResponseWriter, r *http.Request) {
	m := replayPath.FindStringSubmatch(r.RequestURI)
	if m == nil {
		http.NotFound(w, r)
		return
	}
	original := r.RequestURI[len(m[0]):]
	best := s.nearest(original, m[1])
	if best == nil {
		http.Error(w, "Wayback Machine has not archived that URL.", http.StatusNotFound)
		return
	}
	if best.ts != m[1] {
		// Not http.Redirect: it would clean the "//" of the original URL.
		w.Header().Set("Location", s.URL+"/web/"+best.ts+m[2]+"/"+best.URL)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", best.MIME)
	w.Header().Set("Memento-Datetime", best.Time.Format(http.TimeFormat))
	w.Header().Set("Link", "<"+best.URL+`>; rel="original"`)
	w.WriteHeader(best.Status)
	if m[2] == "id_" {
		w.Write(best.Body)
		return
	}
	w.Write(rewrite(best.Body, s.URL, best.ts))
}

// nearest returns the capture of original closest in time to the
// timestamp prefix ts, or nil.
func (s *Server) nearest(original, ts string) *row {
	want, err := time.Parse("20060102150405", ts+"00000101000000"[len(ts):])
	if err != nil {
		return nil
	}
	m := newMatcher(original, "exact")
	var best *row
	var bestD time.Duration
	for i := range s.rows {
		r := &s.rows[i]
		if !m.match(r.URL) {
			continue
		}
		d := r.Time.Sub(want).Abs()
		if best == nil || d < bestD {
			best, bestD = r, d
		}
	}
	return best
}

// bodyTag finds the end of the first <body …> start tag.
var bodyTag = regexp.MustCompile(`(?i)<body[^>]*>`)

// absLink finds absolute links in href and src attributes.
var absLink = regexp.MustCompile(`((?:href|src)=["'])(https?://)`)

// rewrite imitates the Wayback's replay rewriting: absolute links are
// routed through the archive and a toolbar block is inserted right after
// <body> (or at the start when there is none).
func rewrite(body []byte, base, ts string) []byte {
	out := absLink.ReplaceAll(body, []byte("${1}"+base+"/web/"+ts+"/${2}"))
	toolbar := []byte(ToolbarBegin + "\n<div id=\"wm-ipp\">archived " + ts + "</div>\n" + ToolbarEnd + "\n")
	loc := bodyTag.FindIndex(out)
	at := 0
	if loc != nil {
		at = loc[1]
	}
	var b bytes.Buffer
	b.Write(out[:at])
	b.Write(toolbar)
	b.Write(out[at:])
	return b.Bytes()
}

// mementoURL is the URI-M the server hands out in TimeMaps: without id_,
// as real TimeMaps list them.
func (s *Server) mementoURL(r row) string {
	return s.URL + "/web/" + r.ts + "/" + r.URL
}
