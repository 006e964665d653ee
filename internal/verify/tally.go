package verify

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/problems"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// where says whether archives would keep a block or manifest seen on a
// page, or why not.
type where uint8

const (
	kept         where = iota // on a page archives reach and keep, before the cut
	byRobots                  // the page is disallowed by robots.txt for an archive
	byMeta                    // the page is noindex or noarchive
	byTruncation              // it ends past VerifyOptions.TruncateAt
	byUnlinked                // no link from the root page reaches the page
	byType                    // its Content-Type keeps it out of recover's listing
)

// shardKey names one shard of one segment version (by its index in
// tally.layouts).
type shardKey struct {
	seg    int32
	stripe uint32
	shard  uint16
}

// pageSeen is a page holding verified blocks or manifests.
type pageSeen struct {
	url       string
	key       string     // pageKey: URLs of one page share it
	depth     int        // link hops from the root page; -1 when no link reaches it
	reason    string     // why archives would not keep the page, "" if they would
	archives  archiveSet // the archives that would keep it (robots.txt and links)
	blocks    []pageItem[shardKey]
	manifests []pageItem[manifest.ID]
}

// pageItem is a block or manifest on a page and whether archives keep it.
type pageItem[T any] struct {
	key T
	w   where
}

// firstGet is what the crawl's GET of a page gave, for the signal checks.
type firstGet struct {
	sum        [32]byte
	etag, lmod string
}

// tally collects what the pages of a Verify carry: every verified block
// and manifest, and where each was seen. Safe for concurrent use.
type tally struct {
	mu        sync.Mutex
	layouts   []block.Layout
	layoutIdx map[block.Layout]int32
	shards    map[shardKey]uint8 // where each was seen: bit 1<<where
	manifests map[manifest.ID]*manifest.Signed
	pages     []*pageSeen
	first     map[string]firstGet   // by page URL
	visited   map[string]*visitInfo // by pageKey: every page the crawl read
	rootURL   string

	rejected, foreign, unsigned int
	problems                    []string
	omitted                     int
}

func newTally() *tally {
	return &tally{layoutIdx: map[block.Layout]int32{}, shards: map[shardKey]uint8{},
		manifests: map[manifest.ID]*manifest.Signed{}, first: map[string]firstGet{}, visited: map[string]*visitInfo{}}
}

// visitInfo is what the crawl saw of one page (by pageKey) under all its
// URLs.
type visitInfo struct {
	url      string     // the first URL it was read under
	depth    int        // the fewest link hops from the root page
	archives archiveSet // the archives that would keep it under some URL
	note     string     // robotsVerdict's note, if some archives would not
	unlisted bool       // its Content-Type is one recover's listing skips (see listedType)
}

// scan records the verified blocks and manifests of one page, described
// by ps (url, key, depth, reason, archives). w is kept when archives keep
// the page (then blocks ending past the cut are byTruncation, and the
// others go to the assembler), else why not, in words in ps.reason.
func (v *verification) scan(body []byte, ps *pageSeen, w where) {
	pageURL := ps.url
	for f := range htmlblock.All(body) {
		fw := w
		if fw == kept && int64(f.End) > v.o.TruncateAt {
			fw = byTruncation
		}
		var err error
		switch {
		case f.Err != nil:
			err = f.Err
		case f.Kind == htmlblock.KindManifest:
			err = v.scanManifest(f.Payload, ps, fw)
		case f.Kind == htmlblock.KindBlock:
			err = v.scanBlock(f.Payload, ps, fw)
		default:
			err = fmt.Errorf("unexpected comment kind %q", f.Kind)
		}
		if err != nil {
			v.t.reject(fmt.Errorf("%s: comment at byte %d: %w", pageURL, f.Offset, err))
		}
	}
	if len(ps.blocks)+len(ps.manifests) > 0 {
		v.t.mu.Lock()
		v.t.pages = append(v.t.pages, ps)
		v.t.mu.Unlock()
	}
}

func (v *verification) scanBlock(payload []byte, ps *pageSeen, w where) error {
	b, err := block.Parse(payload)
	if err != nil {
		return err
	}
	if err := v.verifier.Verify(b.KeyID, b.Salt, "block", b.Digest[:], b.Signature[:]); err != nil {
		return fmt.Errorf("block %s/%d/%d: %w", b.Name, b.Stripe, b.Shard, err)
	}
	if w == kept {
		if o, err := v.a.Add(payload, codec.Origin{Source: "live", URL: ps.url}); o == codec.Rejected {
			return err
		}
	}
	k := v.t.shard(b, w)
	ps.blocks = append(ps.blocks, pageItem[shardKey]{k, w})
	return nil
}

func (v *verification) scanManifest(payload []byte, ps *pageSeen, w where) error {
	s, err := manifest.Parse(payload)
	if err != nil {
		return err
	}
	if err := v.verifier.Verify(s.KeyID, s.Salt, "manifest", s.Digest[:], s.Signature[:]); err != nil {
		return fmt.Errorf("manifest of generation %s: %w", s.Manifest.Generation, err)
	}
	id := s.Manifest.Generation
	v.t.mu.Lock()
	if _, ok := v.t.manifests[id]; !ok {
		v.t.manifests[id] = s
	}
	v.t.mu.Unlock()
	ps.manifests = append(ps.manifests, pageItem[manifest.ID]{id, w})
	return nil
}

// shard records where a verified block was seen and returns its key.
func (t *tally) shard(b *block.Block, w where) shardKey {
	t.mu.Lock()
	defer t.mu.Unlock()
	idx, ok := t.layoutIdx[b.Layout]
	if !ok {
		idx = int32(len(t.layouts))
		t.layouts = append(t.layouts, b.Layout)
		t.layoutIdx[b.Layout] = idx
	}
	k := shardKey{idx, b.Stripe, b.Shard}
	t.shards[k] |= 1 << w
	return k
}

// reject counts a comment that was damaged or not signed by the key.
func (t *tally) reject(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rejected++
	switch {
	case errors.Is(err, keys.ErrUnknownSigner):
		t.foreign++
	case errors.Is(err, keys.ErrUnsigned):
		t.unsigned++
	}
	if len(t.problems) < problems.MaxLines {
		t.problems = append(t.problems, err.Error())
	} else {
		t.omitted++
	}
}

// visit is the crawl's visit function: it remembers the page's answer
// for the signal checks and scans it.
func (v *verification) visit(p *crawledPage) {
	u, key := p.URL.String(), siteurl.PageKey(p.URL)
	v.t.mu.Lock()
	v.t.first[u] = firstGet{sum: sha256.Sum256(p.Body), etag: p.Header.Get("ETag"), lmod: p.Header.Get("Last-Modified")}
	if p.Depth == 0 {
		v.t.rootURL = u
	}
	v.t.visit(u, key, p)
	v.t.mu.Unlock()
	ps := &pageSeen{url: u, key: key, depth: p.Depth, archives: p.Archives}
	w := kept
	switch {
	case p.Archives == 0:
		w, ps.reason = byRobots, p.Blocked
	case p.Excluded != "":
		w, ps.reason = byMeta, p.Excluded
	case p.Unlisted != "":
		w, ps.reason = byType, p.Unlisted
	}
	v.scan(p.Body, ps, w)
}

// visit records a page the crawl read under the URL u; the caller holds
// mu.
func (t *tally) visit(u, key string, p *crawledPage) {
	vi := t.visited[key]
	if vi == nil {
		vi = &visitInfo{url: u, depth: p.Depth, unlisted: p.Unlisted != ""}
		t.visited[key] = vi
	}
	vi.depth = min(vi.depth, p.Depth)
	vi.archives |= p.Archives
	if vi.note == "" {
		vi.note = p.RobotsNote
	}
}

// oneHop counts the pages one link from the root page (not the root page
// under another URL).
func (t *tally) oneHop() int {
	n := 0
	for _, vi := range t.visited {
		if vi.depth == 1 && !vi.unlisted {
			n++
		}
	}
	return n
}
