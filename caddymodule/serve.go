package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/site"
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
// MaxBuffer or excluded from archives, else with blocks inserted and
// validators of the final body.
func (h *Handler) finish(w http.ResponseWriter, r *http.Request, rec caddyhttp.ResponseRecorder, g *generation, key string) error {
	body := rec.Buffer().Bytes()
	if int64(len(body)) > h.MaxBuffer {
		h.metrics.skipped.WithLabelValues(h.Name, "too_large").Inc()
		h.logger.Info("page too large for lazarus blocks", zap.String("path", r.URL.Path), zap.Int("bytes", len(body)), zap.Int64("max_buffer", h.MaxBuffer))
		return h.write(w, r, http.StatusOK, body)
	}
	sum := sha256.Sum256(body)
	in := h.inspect(r, sum, body)
	if reason := excluded(w.Header(), in); reason != "" {
		h.metrics.skipped.WithLabelValues(h.Name, reason).Inc()
		return h.write(w, r, http.StatusOK, body)
	}
	if key == "/" {
		if err := g.placer.noteRoot(h.ctx, in.Links); err != nil {
			h.logger.Warn("recording the root page's links", zap.Error(err))
		}
	}
	out, etag, since, err := h.render(g, key, sum, body)
	if errors.Is(err, errPageTooLarge) {
		h.metrics.skipped.WithLabelValues(h.Name, "page_too_large").Inc()
		return h.write(w, r, http.StatusOK, body)
	}
	if err != nil {
		h.metrics.skipped.WithLabelValues(h.Name, "error").Inc()
		h.logger.Error("inserting lazarus blocks", zap.String("path", r.URL.Path), zap.Error(err))
		return h.write(w, r, http.StatusOK, body)
	}
	h.metrics.injected.WithLabelValues(h.Name).Inc()
	h.metrics.added.WithLabelValues(h.Name).Add(float64(len(out) - len(body)))
	h.metrics.age.WithLabelValues(h.Name).Set(h.now().Sub(g.time).Seconds())
	hdr := w.Header()
	hdr.Set("ETag", etag)
	lm := lastModified(hdr.Get("Last-Modified"), since)
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

// layout is what one page carries: the current generation's assignment
// and, during the overlap, the previous generation's blocks that fit.
type layout struct {
	g, prev   *generation
	cur       *assignment
	oldBlocks []int
	since     time.Time // when the page's comments last changed
}

// layoutFor works out what the page at key carries. The previous
// generation's blocks ride along until Overlap after the current
// generation's time; when that ends, pages that carried them change then.
func (h *Handler) layoutFor(g *generation, key string) (*layout, error) {
	a, err := g.placer.assign(h.ctx, key, true)
	if err != nil {
		return nil, err
	}
	l := &layout{g: g, cur: a, since: a.since}
	p := h.prev.Load()
	if p == nil || p.id != g.previous {
		return l, nil
	}
	old, err := h.riding(g, a, p, key)
	if err != nil || len(old) == 0 {
		return l, nil // best effort: the previous generation may be gone
	}
	if end := g.time.Add(time.Duration(h.Overlap)); h.now().Before(end) {
		l.prev, l.oldBlocks = p, old
	} else if end.After(l.since) {
		l.since = end
	}
	return l, nil
}

// riding returns the blocks of p that fit on the page beside a.
func (h *Handler) riding(g *generation, a *assignment, p *generation, key string) ([]int, error) {
	used := int64(0)
	if a.manifest {
		used += int64(len(g.manifest)) + 1
	}
	for _, i := range a.blocks {
		used += armoredSize(g.blocks[i].size)
	}
	pa, err := p.placer.assign(h.ctx, key, false)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, i := range pa.blocks {
		size := armoredSize(p.blocks[i].size)
		if used+size > h.PageBudget {
			break
		}
		out = append(out, i)
		used += size
	}
	return out, nil
}

// noticeReserve is room kept for the notice element.
const noticeReserve = 512

// errPageTooLarge means not even one comment fits under MaxPageBytes.
var errPageTooLarge = errors.New("page too large for any block under max_page_bytes")

// fit drops riding blocks, then the current generation's blocks, from the
// end until the comments fit in room bytes (the manifest last). It reports
// whether anything is left.
func (l *layout) fit(room int64) bool {
	cur := *l.cur
	if cur.manifest {
		room -= int64(len(l.g.manifest)) + 1
	}
	if room < 0 {
		return false
	}
	n, used := fitting(l.g, cur.blocks, room)
	if n < len(cur.blocks) {
		cur.blocks, l.oldBlocks = cur.blocks[:n], nil
		l.cur = &cur
		return n > 0 || cur.manifest
	}
	k, _ := fitting(l.prev, l.oldBlocks, room-used)
	l.oldBlocks = l.oldBlocks[:k]
	return true
}

// fitting returns how many leading blocks of idx fit in room bytes and
// the bytes they take.
func fitting(g *generation, idx []int, room int64) (int, int64) {
	used := int64(0)
	for n, i := range idx {
		size := armoredSize(g.blocks[i].size)
		if used+size > room {
			return n, used
		}
		used += size
	}
	return len(idx), used
}

// etag derives the strong ETag of the final page from everything its bytes
// depend on: the upstream body, the generation, the blocks and manifest it
// carries, the previous generation's blocks riding along. Equal inputs
// give equal bytes and the same ETag; any change of blocks changes it.
func (l *layout) etag(body [sha256.Size]byte, notice string) string {
	k := sha256.New()
	k.Write(body[:])
	k.Write([]byte(notice))
	fmt.Fprintf(k, "\x00%s\x00%v\x00%v", l.g.id, l.cur.manifest, l.cur.blocks)
	if l.prev != nil {
		fmt.Fprintf(k, "\x00%s\x00%v", l.prev.id, l.oldBlocks)
	}
	return `"lz-` + hex.EncodeToString(k.Sum(nil))[:32] + `"`
}

// render returns the final page, its strong ETag and when its blocks last
// changed. Finished pages are cached under the ETag, bounded in bytes, so
// the HTML is parsed once per page version, not once per request.
func (h *Handler) render(g *generation, key string, sum [sha256.Size]byte, body []byte) ([]byte, string, time.Time, error) {
	l, err := h.layoutFor(g, key)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	if !l.fit(h.MaxPageBytes - int64(len(body)) - noticeReserve) {
		return nil, "", time.Time{}, errPageTooLarge
	}
	notice := h.noticeText(l.since)
	etag := l.etag(sum, notice)
	since := l.since
	if out, ok := h.pages.get(etag); ok {
		return out, etag, since, nil
	}
	out, err := h.inject(l, body, notice)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	h.pages.put(etag, out)
	return out, etag, since, nil
}

// noticeText is the visible notice of a page whose comments last changed
// at since, "" without Notice.
func (h *Handler) noticeText(since time.Time) string {
	if h.Notice == "" {
		return ""
	}
	return strings.ReplaceAll(h.Notice, "{date}", since.UTC().Format("2006-01-02"))
}

// inject returns body with the notice, if any, and the layout's manifest
// and block comments.
func (h *Handler) inject(l *layout, body []byte, notice string) ([]byte, error) {
	if notice != "" {
		var err error
		if body, _, err = site.SetNotice(body, notice); err != nil {
			return nil, fmt.Errorf("notice: %w", err)
		}
	}
	var comments [][]byte
	if l.cur.manifest {
		comments = append(comments, l.g.manifest)
	}
	add := func(g *generation, idx []int) error {
		for _, i := range idx {
			c, err := h.cache.armored(h.ctx, g, i)
			if err != nil {
				return err
			}
			comments = append(comments, c)
		}
		return nil
	}
	if err := add(l.g, l.cur.blocks); err != nil {
		return nil, err
	}
	if err := add(l.prev, l.oldBlocks); err != nil {
		return nil, err
	}
	return htmlblock.Insert(body, comments...)
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
