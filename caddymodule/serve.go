package caddymodule

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/lazarus-preserve/lazarus/internal/site"
	"go.uber.org/zap"
)

// revalidation are the request headers the next handler evaluates
// against its own representation. The module leaves them in place unless
// the page turns out to be one it changes; then it asks again without
// them and answers them itself, for the final bytes.
var revalidation = []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"}

// ServeHTTP inserts blocks into eligible HTML responses of next. Only
// responses it changes are altered; for everything else the next handler
// sees the client's request, bar Accept-Encoding, and its answer goes to
// the client as it comes. The rule:
//
//   - A request for a path whose page the module changed last time it was
//     served, or carrying one of our ETags ("lz-…") in If-None-Match,
//     If-Match or If-Range, is the module's to answer: the next handler is
//     asked for the whole page (GET, no Range, no conditionals).
//   - Any other request goes on as sent (HEAD stays HEAD, with its Range
//     and conditionals), without Accept-Encoding so a page comes as
//     identity bytes. A 200 HTML page the module may change (see
//     changeable) is held, up to MaxBuffer, and answered for the final
//     bytes. The next handler's 304, 412, 416 or HTML 206 for a path not
//     known to pass unchanged (it judged the page without blocks), or its
//     HEAD answer for an HTML page, is held, and the page asked for
//     again, whole, if it is one the module changes (after a HEAD without
//     Range and conditionals, for a 304, 412 or 416). Anything else passes
//     through untouched, and so does a held answer for a page that turns
//     out not to change (robots noarchive, too large, no block fits).
//   - The module answers for the final bytes: our strong ETag, the
//     upstream's Last-Modified raised to when the page's blocks last
//     changed (none if the upstream sent none), conditionals evaluated
//     against those, Range ignored (the full 200, Accept-Ranges: none),
//     HEAD with the GET's headers.
//
// A held 200 whose body passes MaxBuffer stops being held: it goes on
// unchanged, streamed. A page whose blocks cannot be read (storage
// failing) is served as next made it, marked no-store: see finish.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	h.noteCrawler(r)
	key, ok := h.eligible(r)
	if !ok {
		return next.ServeHTTP(w, r)
	}
	g := h.current()
	if g == nil {
		return next.ServeHTTP(w, r)
	}
	if changes, _ := h.changes.get(key); changes || ownValidators(r) {
		return h.serveWhole(w, r, next, g, key, nil)
	}
	rec := h.newRecorder(w, r, key, func(status int, hdr http.Header) bool { return h.holdFirst(key, status, hdr) })
	defer rec.free()
	up := r.Clone(r.Context())
	up.Header.Del("Accept-Encoding")
	if err := next.ServeHTTP(rec, up); err != nil {
		return rec.failed(err)
	}
	rec.finish()
	switch {
	case !rec.held:
		return nil
	case rec.status == http.StatusOK && r.Method == http.MethodGet:
		return h.finish(rec, r, g, key, nil)
	case h.changesPage(rec.status, r, next, key):
		return h.serveWhole(w, r, next, g, key, rec)
	}
	return rec.release()
}

// serveWhole asks next for the whole page (GET, identity, no Range, no
// conditionals) and answers r for the final bytes. held, if not nil, is
// next's own answer to r, sent instead when the page turns out not to be
// changed after all.
func (h *Handler) serveWhole(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, g *generation, key string, held *recorder) error {
	rec := h.newRecorder(w, r, key, func(status int, hdr http.Header) bool { return h.holdWhole(key, status, hdr) })
	defer rec.free()
	if err := next.ServeHTTP(rec, wholeRequest(r, http.MethodGet)); err != nil {
		return rec.failed(err)
	}
	rec.finish()
	if !rec.held {
		return nil // not a page the module changes: next's answer went on
	}
	return h.finish(rec, r, g, key, held)
}

// newRecorder returns a recorder for r holding at most MaxBuffer bytes; a
// page that passes it is remembered as one the module does not change.
func (h *Handler) newRecorder(w http.ResponseWriter, r *http.Request, key string, hold func(int, http.Header) bool) *recorder {
	rec := newRecorder(w, h.MaxBuffer, hold)
	rec.spilled = func() {
		h.changes.put(key, false)
		h.metrics.skipped.WithLabelValues(h.Name, "too_large").Inc()
		h.logger.Info("page too large for lazarus blocks", zap.String("path", r.URL.Path), zap.Int64("max_buffer", h.MaxBuffer))
	}
	return rec
}

// holdFirst decides on next's answer to the client's own request for a
// path not known to be one the module changes: hold a 200 it may change,
// and, unless the path is known to pass unchanged, an HTML 206 of at most
// MaxBuffer in all, and a 304, 412 or 416 (they say nothing of the type).
func (h *Handler) holdFirst(key string, status int, hdr http.Header) bool {
	_, known := h.changes.get(key)
	switch status {
	case http.StatusOK:
		return h.holdWhole(key, status, hdr)
	case http.StatusPartialContent:
		return !known && h.changeable(hdr) && rangeTotal(hdr) <= h.MaxBuffer
	case http.StatusNotModified, http.StatusPreconditionFailed, http.StatusRequestedRangeNotSatisfiable:
		return !known
	}
	return false
}

// holdWhole decides on a 200: hold it if the module may change it.
func (h *Handler) holdWhole(key string, status int, hdr http.Header) bool {
	if status == http.StatusOK && h.changeable(hdr) {
		return true
	}
	if status == http.StatusOK {
		h.changes.put(key, false)
	}
	return false
}

// changesPage reports whether a held answer of next is for a page the
// module may change: a HEAD's 200 or a 206 is (they were held for their
// headers); for a 304, 412 or 416 a HEAD without Range and conditionals
// tells.
func (h *Handler) changesPage(status int, r *http.Request, next caddyhttp.Handler, key string) bool {
	if status == http.StatusOK || status == http.StatusPartialContent {
		return true
	}
	probe := &probeWriter{hdr: http.Header{}}
	if err := next.ServeHTTP(probe, wholeRequest(r, http.MethodHead)); err != nil {
		return false // next's first answer stands
	}
	return h.holdWhole(key, cmp.Or(probe.status, http.StatusOK), probe.hdr)
}

// ownValidators reports whether r carries one of our ETags in
// If-None-Match, If-Match or If-Range: the client holds a page the
// module made.
func ownValidators(r *http.Request) bool {
	for _, name := range []string{"If-None-Match", "If-Match", "If-Range"} {
		for _, v := range r.Header.Values(name) {
			if strings.Contains(v, `"lz-`) {
				return true
			}
		}
	}
	return false
}

// wholeRequest is r as method for the whole identity page: no
// Accept-Encoding, Range or conditionals.
func wholeRequest(r *http.Request, method string) *http.Request {
	up := r.Clone(r.Context())
	up.Method = method
	up.Header.Del("Accept-Encoding")
	for _, name := range revalidation {
		up.Header.Del(name)
	}
	return up
}

// maxKeyLen bounds the path (and query) of a page that may get blocks:
// archives seldom keep such URLs, and every path the module remembers
// costs memory and, while placement is live, a storage record.
const maxKeyLen = 1024

// eligible reports whether a request may get blocks, and the key that
// chooses them: GET and HEAD only, not WebSocket upgrades, and without a
// query string unless QueryCarriers (then the key includes the query),
// at most maxKeyLen bytes.
func (h *Handler) eligible(r *http.Request) (string, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return "", false
	}
	if headerHasToken(r.Header, "Connection", "upgrade") || r.Header.Get("Upgrade") != "" {
		return "", false
	}
	key := r.URL.Path
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		if !h.QueryCarriers {
			return "", false
		}
		key += "?" + r.URL.RawQuery
	}
	return key, len(key) <= maxKeyLen
}

// changeable reports whether a response with these headers may get
// blocks: HTML or XHTML without Content-Encoding, Cache-Control
// no-transform, and with Content-Length absent or at most MaxBuffer.
func (h *Handler) changeable(hdr http.Header) bool {
	if hdr.Get("Content-Encoding") != "" || headerHasToken(hdr, "Cache-Control", "no-transform") {
		return false
	}
	mt, _, err := mime.ParseMediaType(hdr.Get("Content-Type"))
	if err != nil || (mt != "text/html" && mt != "application/xhtml+xml") {
		return false
	}
	if cl := hdr.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n > h.MaxBuffer {
			return false
		}
	}
	return true
}

// rangeTotal is the complete length a 206's Content-Range gives, -1 if
// unknown.
func rangeTotal(hdr http.Header) int64 {
	_, total, ok := strings.Cut(hdr.Get("Content-Range"), "/")
	n, err := strconv.ParseInt(total, 10, 64)
	if !ok || err != nil {
		return -1
	}
	return n
}

// finish answers r from a held 200 page: with blocks inserted and
// validators of the final bytes, or unchanged (see unchanged) when the
// page is excluded from archives, too large or gets no blocks. When the
// blocks of the generation served cannot be read, the handler leaves it
// for the bundle's current one at once and tries again; if that fails
// too (storage is failing), the site stays up: the page goes out as next
// made it, marked no-store so no cache keeps it, logged and counted
// (block_unavailable). Blocks are never served half.
func (h *Handler) finish(rec *recorder, r *http.Request, g *generation, key string, held *recorder) error {
	body := rec.buf.Bytes()
	sum := sha256.Sum256(body)
	in := h.inspect(r, sum, body)
	if reason := excluded(rec.hdr, in); reason != "" {
		return h.unchanged(rec, r, key, held, reason)
	}
	if key == "/" {
		if err := g.placer.noteRoot(h.ctx, in.Links); err != nil {
			h.logger.Warn("recording the root page's links", zap.Error(err))
		}
	}
	out, etag, since, err := h.render(g, key, sum, body)
	if errors.Is(err, errBlockUnavailable) {
		if g2 := h.leave(g); g2 != nil && g2 != g {
			out, etag, since, err = h.render(g2, key, sum, body)
		}
	}
	switch {
	case errors.Is(err, errPageTooLarge):
		return h.unchanged(rec, r, key, held, "page_too_large")
	case errors.Is(err, errBlockUnavailable):
		h.logger.Error("lazarus blocks cannot be read; serving the page without them, no-store",
			zap.String("path", r.URL.Path), zap.Error(err))
		rec.hdr.Set("Cache-Control", "no-store")
		return h.unchanged(rec, r, "", held, "block_unavailable")
	case err != nil: // no blocks could be assigned: the page carries none yet
		h.logger.Error("inserting lazarus blocks", zap.String("path", r.URL.Path), zap.Error(err))
		return h.unchanged(rec, r, "", held, "error")
	}
	h.changes.put(key, true)
	h.metrics.injected.WithLabelValues(h.Name).Inc()
	h.metrics.added.WithLabelValues(h.Name).Add(float64(len(out) - len(body)))
	h.metrics.age.WithLabelValues(h.Name).Set(h.now().Sub(g.time).Seconds())
	return rec.respond(finalValidators(rec.hdr, r, etag, since), out, r.Method == http.MethodHead)
}

// finalValidators sets the headers of a page with blocks and returns
// the status answering r's conditionals: 200, 304 or 412.
func finalValidators(hdr http.Header, r *http.Request, etag string, since time.Time) int {
	hdr.Set("ETag", etag)
	lm := lastModified(hdr.Get("Last-Modified"), since)
	if lm.IsZero() {
		hdr.Del("Last-Modified")
	} else {
		hdr.Set("Last-Modified", lm.Format(http.TimeFormat))
	}
	hdr.Set("Accept-Ranges", "none")
	hdr.Del("Content-Range")
	return precondition(r, etag, lm)
}

// unchanged answers r with the page as next served it, counted as
// skipped for reason: next's own answer to r if held, else the held 200
// with r's conditionals evaluated against next's validators (next did
// not see them when asked for the whole page). A key is remembered as a
// path the module does not change.
func (h *Handler) unchanged(rec *recorder, r *http.Request, key string, held *recorder, reason string) error {
	h.metrics.skipped.WithLabelValues(h.Name, reason).Inc()
	if key != "" {
		h.changes.put(key, false)
	}
	if held != nil {
		return held.release()
	}
	lm, _ := http.ParseTime(rec.hdr.Get("Last-Modified"))
	return rec.respond(precondition(r, rec.hdr.Get("ETag"), lm), rec.buf.Bytes(), r.Method == http.MethodHead)
}

// excluded says why a page must not carry blocks: the page's robots meta
// tags or an X-Robots-Tag header with noindex, noarchive or none.
func excluded(hdr http.Header, in site.Inspection) string {
	if in.Excluded != "" {
		return in.Excluded
	}
	for _, v := range hdr.Values("X-Robots-Tag") {
		for _, d := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ',' || r == ' ' || r == ':' }) {
			if d == "noindex" || d == "noarchive" || d == "none" {
				return "noarchive"
			}
		}
	}
	return ""
}

// inspect returns the page's links and robots directives, cached by the
// SHA-256 of its body.
func (h *Handler) inspect(r *http.Request, sum [sha256.Size]byte, body []byte) site.Inspection {
	if in, ok := h.inspected.get(sum); ok {
		return in
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := &url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path}
	in := site.Inspect(body, u)
	h.inspected.put(sum, in)
	return in
}

// headerHasToken reports whether a comma-separated header has token
// (case-insensitive).
func headerHasToken(hdr http.Header, name, token string) bool {
	for _, v := range hdr.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if f, _, _ := strings.Cut(part, "="); strings.EqualFold(strings.TrimSpace(f), token) {
				return true
			}
		}
	}
	return false
}

// probeWriter takes a response to look at its status and headers only.
type probeWriter struct {
	hdr    http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.hdr }

func (p *probeWriter) WriteHeader(status int) {
	if p.status == 0 && (status < 100 || status > 199) {
		p.status = status
	}
}

func (p *probeWriter) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return len(b), nil
}

// FlushError does nothing: nothing is sent.
func (p *probeWriter) FlushError() error { return nil }
