package caddymodule

import (
	"cmp"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// revalidation are the request headers the next handler evaluates
// against its own representation. The module leaves them in place unless
// the page turns out to be one it changes; then it asks again without
// them and answers them itself, for the final bytes.
var revalidation = []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"}

// ServeHTTP inserts blocks into eligible HTML responses of next. Only
// responses it changes are altered; everything else the next handler
// answers to the client's own request, as sent. The rule:
//
//   - A request for a path whose page the module changed last time it was
//     served is the module's to answer: the next handler is asked for the
//     whole page (GET, identity, no Range, no conditionals).
//   - Any other request goes on as sent: HEAD stays HEAD, with its
//     Accept-Encoding (precompressed files and compressing upstreams keep
//     working), Range and conditionals (our own ETags included: next
//     judges them against its validators, which never match). A HEAD of a
//     path known to pass unchanged is not looked at. An identity 200 HTML
//     page the module may change (see changeable) is held, up to
//     holdLimit, and answered for the final bytes. For a path not known to
//     pass unchanged, the next handler's encoded 200 HTML page, its 304,
//     412 or 416, its 206 of HTML or multipart/byteranges, and its HEAD
//     answer for an HTML page are held, and the page asked for again,
//     whole, if it is one the module changes (after a HEAD without Range
//     and conditionals, unless the held answer says it is HTML). Anything
//     else passes through untouched, and so does a held answer for a page
//     that turns out not to change (robots noarchive, too large, no block
//     fits).
//   - The module answers for the final bytes: our strong ETag, the
//     upstream's Last-Modified raised to when the page's blocks last
//     changed (none if the upstream sent none), conditionals evaluated
//     against those, Range ignored (the full 200, Accept-Ranges: none),
//     HEAD with the GET's headers, no trailers.
//
// A held response whose body passes holdLimit, or whose upstream flushed
// and then stayed silent for streamIdle, stops being held: it goes on
// unchanged, streamed. A page whose blocks or placement cannot be read or
// written (storage failing) is served as next made it, marked no-store:
// see finish.
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
	changes, known := h.changes.get(key)
	switch {
	case changes:
		return h.serveWhole(w, r, next, g, key, nil)
	case known && r.Method == http.MethodHead:
		return next.ServeHTTP(w, r)
	}
	rec := h.newRecorder(w, r, key, func(status int, hdr http.Header) bool { return h.holdFirst(key, status, hdr) })
	defer rec.free()
	if err := next.ServeHTTP(rec, r); err != nil {
		return rec.failed(err)
	}
	rec.finish()
	switch {
	case !rec.held:
		return nil
	case rec.status == http.StatusOK && r.Method == http.MethodGet && rec.hdr.Get("Content-Encoding") == "":
		return h.finish(rec, r, g, key, nil)
	case h.changesPage(rec, r, next, key):
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

// defaultStreamIdle is how long an upstream that flushed a held page may
// stay silent before the page goes on unchanged, streamed: long enough for
// a slow page that flushes its head early, short enough that a page that
// streams (progress of a long report) reaches the client.
const defaultStreamIdle = 5 * time.Second

// newRecorder returns a recorder for r holding at most holdLimit bytes; a
// 200 that passes it is remembered as a page the module does not change.
func (h *Handler) newRecorder(w http.ResponseWriter, r *http.Request, key string, hold func(int, http.Header) bool) *recorder {
	rec := newRecorder(w, h.holdLimit(), hold)
	rec.idle = h.streamIdle
	rec.spilled = func(reason string) {
		h.metrics.skipped.WithLabelValues(h.Name, reason).Inc()
		if reason == spillStreamed {
			h.logger.Info("streamed page passes without lazarus blocks", zap.String("path", r.URL.Path), zap.Duration("idle", h.streamIdle))
			return
		}
		if rec.status == http.StatusOK {
			h.changes.put(key, false)
		}
		h.logger.Info("page too large for lazarus blocks", zap.String("path", r.URL.Path), zap.Int64("limit", h.holdLimit()))
	}
	return rec
}

// holdFirst decides on next's answer to the client's own request for a
// path not known to be one the module changes: hold a 200 it may change,
// and, unless the path is known to pass unchanged, an encoded HTML 200, a
// 206 of HTML (of at most holdLimit in all) or multipart/byteranges, and
// a 304, 412 or 416 (they say nothing of the type).
func (h *Handler) holdFirst(key string, status int, hdr http.Header) bool {
	_, known := h.changes.get(key)
	switch status {
	case http.StatusOK:
		return !known && h.pageType(hdr) && hdr.Get("Content-Encoding") != "" || h.holdWhole(key, status, hdr)
	case http.StatusPartialContent:
		return !known && (h.pageType(hdr) && rangeTotal(hdr) <= h.holdLimit() || multipartRanges(hdr))
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
// module may change: a HEAD's 200, an encoded 200 or an HTML 206 is (they
// were held for their headers); for a 304, 412, 416 or multipart 206 a
// HEAD without Range and conditionals tells.
func (h *Handler) changesPage(rec *recorder, r *http.Request, next caddyhttp.Handler, key string) bool {
	if rec.status == http.StatusOK || rec.status == http.StatusPartialContent && !multipartRanges(rec.hdr) {
		return true
	}
	probe := &probeWriter{hdr: http.Header{}}
	if err := next.ServeHTTP(probe, wholeRequest(r, http.MethodHead)); err != nil {
		return false // next's first answer stands
	}
	return h.holdWhole(key, cmp.Or(probe.status, http.StatusOK), probe.hdr)
}

// multipartRanges reports whether a 206 is multipart/byteranges, of parts
// of unknown type, not encoded.
func multipartRanges(hdr http.Header) bool {
	mt, _, err := mime.ParseMediaType(hdr.Get("Content-Type"))
	return err == nil && mt == "multipart/byteranges" && hdr.Get("Content-Encoding") == ""
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
// at most maxKeyLen bytes. The key's path is canonical (see
// canonicalPath): every spelling of a page is placed as that page.
func (h *Handler) eligible(r *http.Request) (string, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return "", false
	}
	if headerHasToken(r.Header, "Connection", "upgrade") || r.Header.Get("Upgrade") != "" {
		return "", false
	}
	key := canonicalPath(r.URL.Path)
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		if !h.QueryCarriers {
			return "", false
		}
		key += "?" + r.URL.RawQuery
	}
	return key, len(key) <= maxKeyLen
}

// changeable reports whether a response with these headers may get
// blocks: a page (see pageType) without Content-Encoding, and with
// Content-Length absent or at most holdLimit.
func (h *Handler) changeable(hdr http.Header) bool {
	if !h.pageType(hdr) || hdr.Get("Content-Encoding") != "" {
		return false
	}
	if cl := hdr.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n > h.holdLimit() {
			return false
		}
	}
	return true
}

// pageType reports whether a response with these headers is a page the
// module may change, once it has its identity bytes: HTML or XHTML,
// without Cache-Control no-transform or Incremental (RFC 10036: deliver
// as it comes).
func (h *Handler) pageType(hdr http.Header) bool {
	if headerHasToken(hdr, "Cache-Control", "no-transform") || caddyhttp.IsIncremental(hdr) {
		return false
	}
	mt, _, err := mime.ParseMediaType(hdr.Get("Content-Type"))
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
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
// too, or the page's placement cannot be read or recorded (storage is
// failing), the site stays up: the page goes out as next made it, marked
// no-store so no cache keeps it, logged and counted (block_unavailable,
// placement_unavailable). Blocks are never served half.
func (h *Handler) finish(rec *recorder, r *http.Request, g *generation, key string, held *recorder) error {
	body := rec.buf.Bytes()
	if int64(len(body))+noticeReserve >= h.MaxPageBytes { // no comment fits: not worth inspecting
		return h.unchanged(rec, r, key, held, "page_too_large")
	}
	sum := h.sums.sum(key, body)
	in := h.inspect(r, key, sum, body)
	verified := h.verified(g, key)
	if verified {
		h.linked.add(in.links)
	}
	reason := excluded(rec.hdr, in)
	if verified {
		h.learned.saw(key, reason, in.queries)
	}
	if reason != "" {
		return h.unchanged(rec, r, key, held, reason)
	}
	if key == "/" {
		if err := g.placer.noteRoot(h.ctx, in.root); err != nil {
			h.logger.Warn("recording the root page's links", zap.Error(err))
		}
	}
	out, etag, since, err := h.render(g, key, verified, sum, body)
	if errors.Is(err, errBlockUnavailable) {
		if g2 := h.leave(g); g2 != nil && g2 != g {
			out, etag, since, err = h.render(g2, key, h.verified(g2, key), sum, body)
		}
	}
	switch {
	case errors.Is(err, errPageTooLarge):
		return h.unchanged(rec, r, key, held, "page_too_large")
	case errors.Is(err, errBlockUnavailable):
		return h.noStore(rec, r, held, "block_unavailable", err)
	case err != nil: // the placement could not be read or recorded
		return h.noStore(rec, r, held, "placement_unavailable", err)
	}
	h.changes.put(key, true)
	h.metrics.injected.WithLabelValues(h.Name).Inc()
	h.metrics.added.WithLabelValues(h.Name).Add(float64(len(out) - len(body)))
	h.metrics.age.WithLabelValues(h.Name).Set(h.now().Sub(g.time).Seconds())
	return rec.respond(finalValidators(rec.hdr, r, etag, since), out, r.Method == http.MethodHead)
}

// noStore answers r with the page as next served it when storage failed
// the page's blocks or placement: marked no-store, so no cache keeps a
// page without the blocks it should carry, with next's validators only.
// The path is not remembered as one that passes unchanged.
func (h *Handler) noStore(rec *recorder, r *http.Request, held *recorder, reason string, err error) error {
	h.logger.Error("lazarus blocks cannot be served; serving the page without them, no-store",
		zap.String("path", r.URL.Path), zap.String("reason", reason), zap.Error(err))
	for _, m := range []*recorder{rec, held} {
		if m != nil {
			m.hdr.Set("Cache-Control", "no-store")
		}
	}
	return h.unchanged(rec, r, "", held, reason)
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
	return rec.answer(precondition(r, rec.hdr.Get("ETag"), lm), rec.buf.Bytes(), r.Method == http.MethodHead, true)
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
