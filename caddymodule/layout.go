package caddymodule

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/site"
)

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
// the HTML is parsed once per page version, not once per request. A block
// of g that cannot be read is errBlockUnavailable.
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
	if out, ok := h.pages.get(etag); ok {
		return out, etag, l.since, nil
	}
	riding := l.prev != nil
	comments, err := h.comments(l)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	if riding && l.prev == nil { // the riding blocks were left off
		etag = l.etag(sum, notice)
	}
	out, err := h.inject(body, notice, comments)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	h.pages.put(etag, out)
	return out, etag, l.since, nil
}

// noticeText is the visible notice of a page whose comments last changed
// at since, "" without Notice.
func (h *Handler) noticeText(since time.Time) string {
	if h.Notice == "" {
		return ""
	}
	return strings.ReplaceAll(h.Notice, "{date}", since.UTC().Format("2006-01-02"))
}

// errBlockUnavailable means a block of the current generation that a
// page carries cannot be read.
var errBlockUnavailable = errors.New("lazarus block unavailable")

// comments reads the layout's comments: the manifest, the current
// generation's blocks, then the previous generation's. If a riding block
// cannot be read, the previous generation is dropped (it is extra) and
// left off this layout; a current block that cannot be read is
// errBlockUnavailable.
func (h *Handler) comments(l *layout) ([][]byte, error) {
	var out [][]byte
	if l.cur.manifest {
		out = append(out, l.g.manifest)
	}
	cur, err := h.armored(l.g, l.cur.blocks)
	if err != nil {
		return nil, fmt.Errorf("%w: generation %s: %w", errBlockUnavailable, l.g.id, err)
	}
	out = append(out, cur...)
	old, err := h.armored(l.prev, l.oldBlocks)
	if err != nil {
		h.dropPrevious(l.prev, err)
		l.prev, l.oldBlocks = nil, nil
		return out, nil
	}
	return append(out, old...), nil
}

// armored returns blocks idx of g as comments.
func (h *Handler) armored(g *generation, idx []int) ([][]byte, error) {
	out := make([][]byte, 0, len(idx))
	for _, i := range idx {
		c, err := h.cache.armored(h.ctx, g, i)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// inject returns body with the notice, if any, and the comments.
func (h *Handler) inject(body []byte, notice string, comments [][]byte) ([]byte, error) {
	if notice != "" {
		var err error
		if body, _, err = site.SetNotice(body, notice); err != nil {
			return nil, fmt.Errorf("notice: %w", err)
		}
	}
	return htmlblock.Insert(body, comments...)
}
