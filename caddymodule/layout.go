package caddymodule

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/site"
)

// layout is what one page carries: the current generation's assignment
// and, while it rides along, the previous generation's blocks that fit.
type layout struct {
	g         *generation
	cur       *assignment
	ride      *riding // the previous generation, when its blocks ride along on this page
	oldBlocks []int
	since     time.Time // when the page's comments last changed
}

// layoutFor works out what the page at key carries in room bytes of
// comments (see placeRequest). The previous generation's blocks that fit
// beside the current ones ride along until its ride ends (see
// Handler.rideEnd); then pages that carried them change, and their since
// moves to that end. A page on which none of them fit never carried any:
// its bytes and validators stay as they are.
func (h *Handler) layoutFor(g *generation, key string, verified bool, room int64) (*layout, error) {
	a, err := g.placer.assign(h.ctx, placeRequest{key: key, create: true, verified: verified, room: room})
	if err != nil {
		return nil, err
	}
	l := &layout{g: g, cur: a, since: a.since}
	used, ok := l.fitCurrent(room)
	if !ok {
		return nil, errPageTooLarge
	}
	r := h.prev.Load()
	if r == nil || r.g.id != g.previous {
		return l, nil
	}
	old, err := h.ridingBlocks(r.g, g, key, min(h.PageBudget, room)-used)
	if err != nil || len(old) == 0 {
		return l, nil // best effort: the previous generation may be gone
	}
	if end := h.rideEnd(r, g); h.now().Before(end) {
		l.ride, l.oldBlocks = r, old
	} else {
		l.moveSince(end)
	}
	return l, nil
}

// moveSince makes t the time the page's comments last changed, if later.
func (l *layout) moveSince(t time.Time) {
	if t.After(l.since) {
		l.since = t
	}
}

// ridingBlocks returns the blocks of p the page at key carries beside
// the current generation g's, in room bytes: p's assignment for key
// (never a new record) while it fits, less the blocks of segment versions
// g carries over from p (see sameVersion): they are g's blocks too,
// placed by g (on this page, where the page carried them under p: see
// placer.carry).
func (h *Handler) ridingBlocks(p, g *generation, key string, room int64) ([]int, error) {
	pa, err := p.placer.assign(h.ctx, placeRequest{key: key})
	if err != nil {
		return nil, err
	}
	var old []int
	for _, i := range pa.blocks {
		name := p.blocks[i].ref.Segment
		if s, ok := g.segments[name]; !ok || !sameVersion(s, p.segments[name]) {
			old = append(old, i)
		}
	}
	n, _ := fitting(p, old, room)
	return old[:n], nil
}

// sameVersion reports whether a and b are one version of a segment,
// whose blocks are the same bytes: the same ciphertext coded by the same
// generation. A segment coded anew (the same ciphertext, other
// parameters) has other blocks.
func sameVersion(a, b manifest.Segment) bool { return a.ID == b.ID && a.Generation == b.Generation }

// noticeReserve is room kept for the notice element.
const noticeReserve = 512

// errPageTooLarge means not even one comment fits under MaxPageBytes.
var errPageTooLarge = errors.New("page too large for any block under max_page_bytes")

// fitCurrent drops the current generation's blocks from the end until
// the comments fit in room bytes (the manifest first), and returns the
// bytes left in use. It reports whether anything is left.
func (l *layout) fitCurrent(room int64) (int64, bool) {
	used := int64(0)
	if l.cur.manifest {
		used = int64(len(l.g.manifest)) + 1
	}
	if used > room {
		return 0, false
	}
	n, size := fitting(l.g, l.cur.blocks, room-used)
	if n < len(l.cur.blocks) {
		cur := *l.cur
		cur.blocks = cur.blocks[:n]
		l.cur = &cur
	}
	return used + size, n > 0 || l.cur.manifest
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
// depend on: the upstream body, the notice, the manifest if it carries
// it, and the blocks it carries (the current generation's, then the
// previous one's riding along), each by its segment version (see
// sameVersion) and place.
// Equal inputs give equal bytes and the same ETag; any change of blocks
// changes it. A page that carries the same blocks under a new generation
// (of segment versions it carries over, no manifest) keeps its ETag.
func (l *layout) etag(body [sha256.Size]byte, notice string) string {
	k := sha256.New()
	k.Write(body[:])
	k.Write([]byte(notice))
	if l.cur.manifest {
		m := sha256.Sum256(l.g.manifest)
		k.Write(m[:])
	}
	writeBlocks(k, l.g, l.cur.blocks)
	if l.ride != nil {
		k.Write([]byte{0})
		writeBlocks(k, l.ride.g, l.oldBlocks)
	}
	return `"lz-` + hex.EncodeToString(k.Sum(nil))[:32] + `"`
}

// writeBlocks writes the identity of blocks idx of g to w: segment
// version (ciphertext digest, generation that coded it) and place of
// each.
func writeBlocks(w io.Writer, g *generation, idx []int) {
	for _, i := range idx {
		ref := g.blocks[i].ref
		s := g.segments[ref.Segment]
		fmt.Fprintf(w, "\x00%x/%x/%s", s.ID[:], s.Generation[:], ref)
	}
}

// render returns the final page, its strong ETag and when its blocks last
// changed. Finished pages are cached under the ETag, bounded in bytes, so
// the HTML is parsed once per page version, not once per request. A block
// of g that cannot be read is errBlockUnavailable.
func (h *Handler) render(g *generation, key string, verified bool, sum [sha256.Size]byte, body []byte) ([]byte, string, time.Time, error) {
	l, err := h.layoutFor(g, key, verified, h.MaxPageBytes-int64(len(body))-noticeReserve)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	notice := h.noticeText(l.since)
	etag := l.etag(sum, notice)
	if out, ok := h.pages.get(etag); ok {
		h.history.served(key, etag, verified, l, out)
		return out, etag, l.since, nil
	}
	riding := l.ride != nil
	comments, err := h.comments(l)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	if riding && l.ride == nil { // the riding blocks were left off: the page is another
		notice = h.noticeText(l.since)
		etag = l.etag(sum, notice)
	}
	out, err := h.inject(body, notice, comments)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	h.pages.put(etag, out)
	h.history.served(key, etag, verified, l, out)
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
// generation's blocks, then the previous generation's. A riding block
// that cannot be read, twice, ends the previous generation's ride (it is
// extra: see dropPrevious) and is left off this layout, whose since moves
// to that end; a current block that cannot be read is
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
	if l.ride == nil {
		return out, nil
	}
	old, err := h.armored(l.ride.g, l.oldBlocks)
	if err != nil { // once more: a storage hiccup should not end the ride
		old, err = h.armored(l.ride.g, l.oldBlocks)
	}
	if err != nil {
		l.moveSince(h.dropPrevious(l.ride, err))
		l.ride, l.oldBlocks = nil, nil
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
