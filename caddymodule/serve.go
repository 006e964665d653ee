package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"go.uber.org/zap"
)

// upstreamDropped are the request headers the next handler never sees:
// it must send the whole identity body, and conditionals are answered
// against the final body.
var upstreamDropped = []string{
	"Accept-Encoding", "Range", "If-Range", "If-None-Match",
	"If-Modified-Since", "If-Match", "If-Unmodified-Since",
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP inserts blocks into eligible HTML responses of next; see the
// package documentation and eligible, shouldBuffer and finish for the rules.
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
	up := r.Clone(r.Context())
	up.Method = http.MethodGet // HEAD answers need the full body's length and ETag
	for _, name := range upstreamDropped {
		up.Header.Del(name)
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	rec := caddyhttp.NewResponseRecorder(w, buf, h.shouldBuffer)
	if err := next.ServeHTTP(rec, up); err != nil {
		return err
	}
	if !rec.Buffered() {
		return nil
	}
	return h.finish(w, r, rec, g, key)
}

// eligible reports whether a request may get blocks, and the key that
// chooses them: GET and HEAD only, not WebSocket upgrades, and without a
// query string unless QueryCarriers (then the key includes the query).
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
	return key, true
}

// shouldBuffer buffers only 200 responses of HTML or XHTML without
// Content-Encoding, Cache-Control no-transform, and with Content-Length
// absent or at most MaxBuffer.
func (h *Handler) shouldBuffer(status int, hdr http.Header) bool {
	if status != http.StatusOK || hdr.Get("Content-Encoding") != "" || headerHasToken(hdr, "Cache-Control", "no-transform") {
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

// finish writes a buffered response: unchanged when larger than
// MaxBuffer, else with blocks inserted and validators of the final body.
func (h *Handler) finish(w http.ResponseWriter, r *http.Request, rec caddyhttp.ResponseRecorder, g *generation, key string) error {
	body := rec.Buffer().Bytes()
	if int64(len(body)) > h.MaxBuffer {
		h.metrics.skipped.WithLabelValues(h.Bundle, "too_large").Inc()
		h.logger.Info("page too large for lazarus blocks", zap.String("path", r.URL.Path), zap.Int("bytes", len(body)), zap.Int64("max_buffer", h.MaxBuffer))
		return h.write(w, r, http.StatusOK, body)
	}
	out, etag, err := h.render(g, key, body)
	if err != nil {
		h.metrics.skipped.WithLabelValues(h.Bundle, "error").Inc()
		h.logger.Error("inserting lazarus blocks", zap.String("path", r.URL.Path), zap.Error(err))
		return h.write(w, r, http.StatusOK, body)
	}
	h.metrics.injected.WithLabelValues(h.Bundle).Inc()
	h.metrics.added.WithLabelValues(h.Bundle).Add(float64(len(out) - len(body)))
	h.metrics.age.WithLabelValues(h.Bundle).Set(h.now().Sub(g.time).Seconds())
	hdr := w.Header()
	hdr.Set("ETag", etag)
	lm := lastModified(hdr.Get("Last-Modified"), g.time)
	hdr.Set("Last-Modified", lm.Format(http.TimeFormat))
	hdr.Set("Accept-Ranges", "none")
	hdr.Del("Content-Range")
	if status := precondition(r, hdr.Get("ETag"), lm); status != http.StatusOK {
		hdr.Del("Content-Length")
		hdr.Del("Content-Type")
		w.WriteHeader(status)
		return nil
	}
	return h.write(w, r, http.StatusOK, out)
}

// render returns the final page and its strong ETag. The ETag is derived
// from everything the final bytes depend on — the upstream body, the
// generation, the previous generation riding along, the page — so equal
// inputs give equal bytes and the same ETag, and any change of blocks
// changes it. Finished pages are cached under it, bounded in bytes, so
// the HTML is parsed once per page version, not once per request.
func (h *Handler) render(g *generation, key string, body []byte) ([]byte, string, error) {
	prevID := ""
	if p := h.previous(); p != nil {
		prevID = p.id
	}
	up := sha256.Sum256(body)
	k := sha256.New()
	k.Write(up[:])
	k.Write([]byte("\x00" + g.id + "\x00" + prevID + "\x00" + key))
	etag := `"lz-` + hex.EncodeToString(k.Sum(nil))[:32] + `"`
	if out, ok := h.pages.get(etag); ok {
		return out, etag, nil
	}
	out, err := h.inject(g, key, body)
	if err != nil {
		return nil, "", err
	}
	h.pages.put(etag, out)
	return out, etag, nil
}

// inject returns body with the page's manifest and block comments.
func (h *Handler) inject(g *generation, key string, body []byte) ([]byte, error) {
	var comments [][]byte
	if g.manifestOn[key] {
		comments = append(comments, g.manifest)
	}
	used := int64(0)
	for _, i := range g.assign(key, h.PageBudget) {
		c, err := h.cache.armored(g, i)
		if err != nil {
			return nil, err
		}
		comments = append(comments, c)
		used += int64(len(c)) + 1
	}
	comments = append(comments, h.overlapBlocks(key, h.PageBudget-used)...)
	return htmlblock.Insert(body, comments...)
}

// overlapBlocks returns the previous generation's blocks for a page while
// the overlap lasts, within what is left of the budget. They are best
// effort: a previous generation already pruned from the bundle adds
// nothing.
func (h *Handler) overlapBlocks(key string, room int64) [][]byte {
	p := h.previous()
	if p == nil || room <= 0 {
		return nil
	}
	var out [][]byte
	for _, i := range p.assign(key, h.PageBudget) {
		c, err := h.cache.armored(p, i)
		if err != nil || int64(len(c))+1 > room {
			break
		}
		out = append(out, c)
		room -= int64(len(c)) + 1
	}
	return out
}

// write sends status, Content-Length and, unless HEAD, body.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, status int, body []byte) error {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(body)
	return err
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
