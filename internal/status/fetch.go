package status

import (
	"context"
	"sort"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/problems"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// resolve works out what every listed capture holds: from the history
// by digest (spot-checked, see spotCheck), else from the cache, else by
// fetching one capture of each distinct key, bounded by MaxFetches.
func (r *statusRun) resolve(ctx context.Context) error {
	r.credit()
	if err := r.fetchUnknown(ctx); err != nil {
		return err
	}
	return r.spotCheck(ctx)
}

// credit gives every capture not yet resolved, of a source whose
// listing is trusted, what the history records for its digest. A
// capture whose listed length is smaller than the bytes of the blocks
// the record names is a truncated copy listed under the full page's
// digest: it is fetched, under its own key.
func (r *statusRun) credit() {
	for _, c := range r.caps {
		if c.how != "" || r.distrusted[c.src] {
			continue
		}
		held, ok := r.hist.held(c.c.Digest)
		if !ok {
			continue
		}
		if c.length > 0 && c.length < held.minBytes {
			r.problem("%s %s (%s): listed with %d bytes, fewer than the %d bytes of blocks its recorded version carries: a truncated copy, fetched",
				r.srcs[c.src].Name(), c.c.URL, c.c.Time.Format("2006-01-02T15:04:05Z"), c.length, held.minBytes)
			c.key = locatorKey(c.c)
			continue
		}
		c.held, c.how = held, HowHistory
		r.rep.Sources[c.src].Known++
	}
}

// locatorKey is the key of a capture whose digest cannot be relied on:
// its source and locator, shared with no other capture.
func locatorKey(c source.Capture) string {
	return c.Source + "\x00" + c.Locator
}

// fetchUnknown resolves the captures still unknown: from the cache by
// key, else by fetching, the captures that matter first (see
// fetchOrder), until MaxFetches requests were sent; the rest are left
// unfetched and counted.
func (r *statusRun) fetchUnknown(ctx context.Context) error {
	var order []string
	byKey := map[string][]*statusCapture{}
	for _, c := range r.caps {
		if c.how != "" {
			continue
		}
		if byKey[c.key] == nil {
			order = append(order, c.key)
		}
		byKey[c.key] = append(byKey[c.key], c)
	}
	var toFetch []string
	for _, key := range order {
		if left := r.fromCache(key, byKey[key]); len(left) > 0 {
			byKey[key] = left
			toFetch = append(toFetch, key)
		}
	}
	r.fetchOrder(toFetch, byKey)
	known := 0
	for _, c := range r.caps {
		if c.how != "" {
			known++
		}
	}
	for i, key := range toFetch {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.progress(Progress{Phase: "fetch", Listed: len(r.caps), Known: known, Fetched: i, ToFetch: len(toFetch)})
		if err := r.fetchKey(ctx, key, byKey[key]); err != nil {
			return err
		}
	}
	r.progress(Progress{Phase: "assess", Listed: len(r.caps), Known: known, Fetched: len(toFetch), ToFetch: len(toFetch)})
	return nil
}

// fromCache gives the captures of a key what the cache holds for them
// and returns those left unknown, oldest first. An entry under the key
// alone was scanned from bytes that had the key's digest, and holds for
// every capture listed with it; an entry under a source and the key
// (sourceKey) holds for that source's captures only: its digest was the
// source's word.
func (r *statusRun) fromCache(key string, caps []*statusCapture) []*statusCapture {
	if sc, ok := r.cache.get(key, r.v); ok {
		r.fromScan(sc, caps)
		return nil
	}
	scans := map[int]*statusScan{}
	var left []*statusCapture
	for _, c := range caps {
		sc, tried := scans[c.src]
		if !tried {
			sc, _ = r.cache.get(r.sourceKey(c.src, key), r.v)
			scans[c.src] = sc
		}
		if sc == nil {
			left = append(left, c)
			continue
		}
		r.fromScan(sc, []*statusCapture{c})
	}
	return left
}

// fromScan gives captures what a cached scan holds.
func (r *statusRun) fromScan(sc *statusScan, caps []*statusCapture) {
	held := r.heldOf(sc)
	for _, c := range caps {
		r.noteLinks(c.c.URL, sc.Links)
		c.held, c.how = held, HowCache
		r.rep.Sources[c.src].Cached++
	}
}

// sourceKey is the cache key of what source i's capture listed under key
// held when its bytes could not confirm the key's digest (they did not
// match it, or were cut at MaxCapture): the source's own word, kept for
// its own captures.
func (r *statusRun) sourceKey(i int, key string) string {
	return "source\x00" + r.srcs[i].Name() + "\x00" + key
}

// fetchOrder sorts the keys to fetch so that the fetches that matter
// come first when MaxFetches cuts them short: captures of the root page
// (the manifest), then of pages the history records as carriers, then
// the rest; newest first within each.
func (r *statusRun) fetchOrder(keys []string, byKey map[string][]*statusCapture) {
	carriers := r.hist.carrierPaths()
	class := func(key string) int {
		best := 2
		for _, c := range byKey[key] {
			p := statusPath(c.c.URL)
			switch {
			case r.isRoot(p):
				return 0
			case carriers[p]:
				best = 1
			}
		}
		return best
	}
	newest := func(key string) int64 {
		cs := byKey[key]
		return cs[len(cs)-1].c.Time.UnixNano() // captures are sorted oldest first
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ci, cj := class(keys[i]), class(keys[j])
		if ci != cj {
			return ci < cj
		}
		return newest(keys[i]) > newest(keys[j])
	})
}

// fetchKey fetches the newest capture of a key that can be fetched (at
// most source.MaxTriesPerKey failures, as recover tries them), scans it,
// caches what it holds and gives it to the captures of the key. Bytes
// whose digest is the key's hold for every source's captures listed with
// it; other bytes (a digest that does not match, a capture cut at
// MaxCapture) only for their own source's, and the newest capture of
// another source is fetched next: one archive cannot say what another
// archive's captures hold. Captures left when MaxFetches is reached are
// marked unfetched.
func (r *statusRun) fetchKey(ctx context.Context, key string, caps []*statusCapture) error {
	if sc := r.streamed[key]; sc != nil {
		r.took(key, sc, caps[0], caps)
		return nil
	}
	failures := 0
	for i := len(caps) - 1; i >= 0; i-- {
		c := caps[i]
		if c.how != "" {
			continue // its source's copy was fetched
		}
		if failures == source.MaxTriesPerKey || r.fetches >= r.o.MaxFetches {
			r.unfetched(caps[:i+1])
			return nil
		}
		r.fetches++
		page, err := r.fetchPage(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			c.how = HowFailed
			failures++
			continue
		}
		cut := int64(len(page)) > r.o.MaxCapture
		if cut {
			page = page[:r.o.MaxCapture]
		}
		sc := scanStatus(page, r.v, cut)
		sc.Links = pageLinks(page, r.pageURL(c.c.URL))
		if d, ok := history.ParseDigest(c.c.Digest); ok && !cut && d.Matches(page) {
			r.took(key, sc, c, caps)
			return nil
		}
		var same []*statusCapture
		for _, o := range caps {
			if o.src == c.src {
				same = append(same, o)
			}
		}
		r.took(r.sourceKey(c.src, key), sc, c, same)
	}
	return nil
}

// fetchPage fetches one capture's bytes (at most MaxCapture+1), counting
// a failure against its source.
func (r *statusRun) fetchPage(ctx context.Context, c *statusCapture) ([]byte, error) {
	page, _, err := source.Read(ctx, r.srcs[c.src], c.c, r.o.MaxCapture+1)
	if err != nil && ctx.Err() == nil {
		sr := &r.rep.Sources[c.src]
		sr.Failed++
		if sr.Error == "" {
			sr.Error = problems.Clip(err.Error(), problems.MaxLineBytes)
		}
		r.problem("%s %s: %v", sr.Name, c.c.URL, err)
	}
	return page, err
}

// unfetched marks captures left unfetched at a bound.
func (r *statusRun) unfetched(caps []*statusCapture) {
	for _, c := range caps {
		if c.how == "" {
			c.how = HowUnfetched
			r.rep.Sources[c.src].Unfetched++
		}
	}
}

// took records the scan of capture c (fetched, or read from a stream)
// for every capture of its key not yet resolved, and caches it.
func (r *statusRun) took(key string, sc *statusScan, c *statusCapture, caps []*statusCapture) {
	sr := &r.rep.Sources[c.src]
	sr.Fetched++
	for _, p := range sc.Problems {
		r.problem("%s %s: %s", sr.Name, c.c.URL, p)
	}
	// Only the links to pages known are kept, and cached.
	sc.Links = r.noteLinks(c.c.URL, sc.Links)
	r.cache.put(key, sc)
	held := r.heldOf(sc)
	for _, o := range caps {
		if o.how == "" || o.how == HowFailed {
			o.held = held // a failed capture holds the same bytes: recover fetches this one instead
		}
		if o.how == "" {
			o.how = HowNone
		}
	}
	c.how = HowFetched
	if sc.Truncated {
		c.how = HowTruncated
	}
}

// heldOf registers a scan's manifests and segment versions and returns
// what it holds. Segment versions made after Now are left out, as their
// manifests are (addManifest): an audit as of a past time judges the
// generations made by then.
func (r *statusRun) heldOf(sc *statusScan) *statusHeld {
	h := &statusHeld{rejected: sc.Rejected, foreign: sc.Foreign}
	for _, m := range sc.manifests {
		if r.madeLater(m) {
			continue
		}
		r.addManifest(m)
		h.manifests = append(h.manifests, m.Manifest.Generation)
	}
	for _, l := range sc.Layouts {
		if time.Unix(l.Time, 0).After(r.o.Now) {
			continue
		}
		k := manifest.SegmentKey{ID: l.ID, Name: l.Name}
		if _, ok := r.layouts[k]; !ok {
			r.layouts[k] = l
		}
	}
	for _, b := range sc.Blocks {
		if _, ok := r.layouts[b.Seg]; !ok {
			continue // made after Now
		}
		h.shards = append(h.shards, heldShard{seg: b.Seg, stripe: b.Stripe, shard: b.Shard})
	}
	return h
}

// describe is a capture's report line.
func (r *statusRun) describe(c *statusCapture) Capture {
	out := Capture{Source: r.srcs[c.src].Name(), URL: c.c.URL, Time: c.c.Time, Digest: c.c.Digest, How: c.how}
	if c.held == nil {
		return out
	}
	if len(c.held.manifests) > 0 {
		out.Manifest = c.held.manifests[0].String()
	}
	out.Blocks, out.Rejected = len(c.held.shards), c.held.rejected
	seen := map[manifest.SegmentKey]bool{}
	gens := map[string]bool{}
	for _, s := range c.held.shards {
		if seen[s.seg] {
			continue
		}
		seen[s.seg] = true
		if g := r.layouts[s.seg].Generation.String(); !gens[g] {
			gens[g] = true
			out.Generations = append(out.Generations, g)
		}
	}
	return out
}
