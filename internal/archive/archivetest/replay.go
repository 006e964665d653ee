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
	s.replay(w, r.RequestURI[len(m[0]):], m[1], m[2], replayStyle{prefix: s.URL + "/web/", begin: ToolbarBegin, end: ToolbarEnd})
}

// replayStyle is how an archive replays: its replay prefix and the
// comments around the banner it inserts into rewritten pages.
type replayStyle struct{ prefix, begin, end string }

// replay answers the replay of original at timestamp ts with modifier
// mod: the capture at exactly that time, or a 302 to the nearest capture
// of the URL. A revisit serves its original's payload.
func (s *Server) replay(w http.ResponseWriter, original, ts, mod string, st replayStyle) {
	best := s.nearest(original, ts)
	if best == nil {
		http.Error(w, "Wayback Machine has not archived that URL.", http.StatusNotFound)
		return
	}
	if best.ts != ts {
		// Not http.Redirect: it would clean the "//" of the original URL.
		w.Header().Set("Location", st.prefix+best.ts+mod+"/"+best.URL)
		w.WriteHeader(http.StatusFound)
		return
	}
	payload := best
	if best.Revisit {
		if payload = s.revisited(best); payload == nil {
			http.Error(w, "the original of this revisit record is not archived", http.StatusNotFound)
			return
		}
	}
	w.Header().Set("Content-Type", payload.MIME)
	w.Header().Set("Memento-Datetime", best.Time.Format(http.TimeFormat))
	w.Header().Set("Link", "<"+best.URL+`>; rel="original"`)
	w.WriteHeader(payload.Status)
	if mod == "id_" {
		w.Write(payload.Body)
		return
	}
	w.Write(rewrite(payload.Body, st, best.ts))
}

// revisited returns the capture whose payload the revisit rv refers to:
// the latest earlier non-revisit capture of its URL with its digest, or
// nil.
func (s *Server) revisited(rv *row) *row {
	m := newMatcher(rv.URL, "exact")
	var orig *row
	for i := range s.rows {
		r := &s.rows[i]
		if !r.Revisit && r.Digest == rv.Digest && !r.Time.After(rv.Time) && m.match(r.URL) && (orig == nil || r.Time.After(orig.Time)) {
			orig = r
		}
	}
	return orig
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

// rewrite imitates replay rewriting: absolute links are routed through
// the archive's replay prefix and a banner between st's comments is
// inserted right after <body> (or at the start when there is none).
func rewrite(body []byte, st replayStyle, ts string) []byte {
	out := absLink.ReplaceAll(body, []byte("${1}"+st.prefix+ts+"/${2}"))
	toolbar := []byte(st.begin + "\n<div id=\"wm-ipp\">archived " + ts + "</div>\n" + st.end + "\n")
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
