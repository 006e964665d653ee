package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// current returns the generation to use for one request, first
// re-reading the current generation id when ReloadInterval has passed
// (one request at a time does so; the others use the generation they
// find). It is nil when no generation could be loaded.
func (h *Handler) current() *generation {
	now := h.now().UnixNano()
	last := h.lastCheck.Load()
	if (last == 0 || now-last >= int64(h.ReloadInterval)) && h.reloading.CompareAndSwap(false, true) {
		defer h.reloading.Store(false)
		h.reload(nil)
		h.lastCheck.Store(now)
	}
	return h.gen.Load()
}

// leave is called when blocks of g, the generation being served, cannot
// be read: it switches to the bundle's current generation at once,
// crawlers or not, and returns the generation now served (g itself when
// no other could be loaded, or another request is reloading right now).
func (h *Handler) leave(g *generation) *generation {
	if h.reloading.CompareAndSwap(false, true) {
		defer h.reloading.Store(false)
		if h.gen.Load() == g {
			h.reload(g)
		}
	}
	return h.gen.Load()
}

// reload loads the current generation if it is new. broken, if not nil,
// is a generation whose blocks cannot be read: the switch away from it
// is not held for crawlers, nor is it kept to ride along.
func (h *Handler) reload(broken *generation) {
	id, err := h.src.current(h.ctx)
	cur := h.gen.Load()
	if err != nil {
		switch {
		case h.builder != nil && errors.Is(err, fs.ErrNotExist): // a builder's first generation may not exist yet
		case cur != nil && !errors.Is(err, fs.ErrNotExist):
			// Storage failing (a Redis outage, say): pages keep the
			// generation in memory. Said once per outage.
			if !h.storageDown.Swap(true) {
				h.logger.Warn("lazarus storage unavailable; serving the generation in memory until it answers",
					zap.String("generation", cur.id), zap.Stringer("bundle", h.src), zap.Error(err))
			}
		default:
			h.logger.Error("reading lazarus bundle", zap.Stringer("bundle", h.src), zap.Error(err))
		}
		return
	}
	if h.storageDown.Swap(false) {
		h.logger.Info("lazarus storage answers again", zap.Stringer("bundle", h.src))
	}
	if cur != nil && cur.id == id {
		h.holdSince = time.Time{}
		h.refreshSafe(cur)
		return
	}
	if cur != nil && broken == nil && h.holdSwitch() {
		h.logger.Info("postponing lazarus generation switch while an archive crawler sweeps the site", zap.String("generation", id),
			zap.Time("until_at_most", h.holdSince.Add(time.Duration(h.MaxCrawlHold))))
		return
	}
	g, err := h.src.loadGeneration(h.ctx, id)
	if err != nil {
		h.logger.Error("loading lazarus generation", zap.Stringer("bundle", h.src), zap.Error(err))
		return
	}
	if cur == broken {
		cur = nil // read the previous generation afresh: it may be gone
	}
	h.use(g, cur)
}

// use switches to the loaded generation g; cur is the one it replaces.
// Its placement starts from its parent's here (one state read and
// write); the parent's records are copied, and placements no longer
// needed deleted, in the background (see copyPlacement).
func (h *Handler) use(g, cur *generation) {
	h.holdSince = time.Time{}
	h.attachPlacer(g)
	prev := h.loadPrevious(g, cur)
	parent := prev
	if cur != nil && cur.id == g.previous {
		parent = cur
	}
	h.startCarry(g, parent)
	if err := g.placer.refresh(h.ctx); err != nil { // sets the coverage metrics
		h.logger.Warn("reading lazarus placement state", zap.String("generation", g.id), zap.Error(err))
	}
	if prev != nil {
		h.prev.Store(&riding{g: prev})
	} else {
		h.prev.Store(nil)
	}
	h.refreshSafe(g) // before the first page: when the ride ended, if it did
	h.gen.Store(g)
	h.metrics.blocks.WithLabelValues(h.Name).Set(float64(len(g.blocks)))
	// pages_in_plan are the pages plan.json names (inject --bundle with a
	// site); the placer puts blocks on the others as they are served, on
	// every page when the plan names none (a self-built generation).
	placement := "plan, then as served"
	if len(g.pages) == 0 {
		placement = "as served"
	}
	h.logger.Info("loaded lazarus generation", zap.String("generation", g.id),
		zap.Int("blocks", len(g.blocks)), zap.Int("pages_in_plan", len(g.pages)), zap.String("placement", placement))
	h.background.Add(1)
	go func() {
		defer h.background.Done()
		if h.copyPlacement(h.ctx, g, parent) {
			h.prunePlacement(g, prev)
		}
	}()
	if h.auditor != nil {
		h.auditor.loaded() // capture requests for g, if configured
	}
}

// holdSwitch reports whether a pending switch waits for an archive
// crawler's sweep: only while one was seen within CrawlSession, and for
// at most MaxCrawlHold after the switch was first postponed. Only reload
// calls it.
func (h *Handler) holdSwitch() bool {
	if !h.crawling() {
		return false
	}
	now := h.now()
	if h.holdSince.IsZero() {
		h.holdSince = now
	}
	if now.Sub(h.holdSince) < time.Duration(h.MaxCrawlHold) {
		return true
	}
	h.logger.Warn("switching lazarus generation although archive crawlers are still seen: max_crawl_hold reached",
		zap.Duration("max_crawl_hold", time.Duration(h.MaxCrawlHold)))
	return false
}

// switchLag bounds how long after a generation stopped being current an
// instance may still serve it: the longest crawler hold, which starts at
// most one ReloadInterval after the switch was published and ends at most
// one ReloadInterval after its limit, and a minute for clocks and slow
// storage.
func (h *Handler) switchLag() time.Duration {
	return time.Duration(h.MaxCrawlHold) + 2*time.Duration(h.ReloadInterval) + time.Minute
}

// riding is the generation the current one replaced, riding along on
// the pages beside it until its ride ends (Handler.rideEnd).
type riding struct {
	g *generation
	// dropped is when it stopped riding early, its blocks unreadable;
	// zero while it rides.
	dropped time.Time
}

// dropPrevious ends the ride of the previous generation r, whose blocks
// cannot be read: it is extra, and pages go on with the current
// generation's blocks alone. It returns when the ride ended: now, or
// when another request ended it. Pages that carried its blocks change
// then, so their Last-Modified moves there (a client validating by date
// gets the new bytes); other instances, which could read the blocks,
// keep them until the ride ends, and the ride is not resumed here
// before the next switch.
func (h *Handler) dropPrevious(r *riding, err error) time.Time {
	ended := &riding{g: r.g, dropped: h.now().UTC().Truncate(time.Second)}
	if h.prev.CompareAndSwap(r, ended) {
		h.logger.Warn("the previous lazarus generation can no longer be read; pages stop carrying it", zap.String("generation", r.g.id), zap.Error(err))
		return ended.dropped
	}
	if now := h.prev.Load(); now != nil && now.g == r.g && !now.dropped.IsZero() {
		return now.dropped
	}
	return ended.dropped
}

// loadPrevious returns the generation g replaced: cur if it is that one,
// else read from the bundle; nil if it is gone or g has none.
func (h *Handler) loadPrevious(g, cur *generation) *generation {
	switch {
	case g.previous == "" || h.Overlap < 0:
		return nil
	case cur != nil && cur.id == g.previous:
		return cur
	}
	p, err := h.src.loadGeneration(h.ctx, g.previous)
	if err != nil {
		return nil // pruned: the overlap rides on what the archives already hold
	}
	h.attachPlacer(p)
	return p
}

// startCarry starts g's placement from its parent's (see
// placer.startCarry), unless it was started already (by another
// instance, or a self-building handler's builder before it published
// g). Should it fail, g's placement starts afresh, pages still carrying
// over the parent's records as they are first served. parent is g's
// parent generation, nil if it is not loaded (see parentRode).
func (h *Handler) startCarry(g, parent *generation) {
	g.placer.parentRode = h.parentRode(g, parent)
	if err := g.placer.startCarry(h.ctx, parent); err != nil {
		h.logger.Warn("carrying the placement of the previous lazarus generation over", zap.String("generation", g.id), zap.Error(err))
	}
}

// copyPlacement copies the parent's page records into g's placement
// (see placer.copyParent), first finishing the parent's own copy if it
// is still under way (its records are the ones to copy); should
// storage fail, it tries again, a few times, while ctx lasts. It reports
// whether both copies completed: until then no placement is pruned,
// the parent's unfinished copy still reading the one before it.
func (h *Handler) copyPlacement(ctx context.Context, g, parent *generation) bool {
	start := time.Now()
	n, err := 0, error(nil)
	for try, pause := 0, time.Second; try < copyTries; try, pause = try+1, 4*pause {
		if parent != nil && parent.placer != nil {
			_, err = parent.placer.copyParent(ctx)
		}
		if err == nil {
			var more int
			more, err = g.placer.copyParent(ctx)
			n += more
		}
		if err == nil || ctx.Err() != nil {
			break
		}
		h.logger.Warn("copying the placement of the previous lazarus generation; trying again", zap.String("generation", g.id), zap.Duration("in", pause), zap.Error(err))
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
	switch {
	case err != nil:
		h.logger.Warn("copying the placement of the previous lazarus generation; pages carry it over as they are served", zap.String("generation", g.id), zap.Error(err))
	case n > 0:
		h.logger.Info("copied the placement of the previous lazarus generation", zap.String("generation", g.id),
			zap.String("previous", g.previous), zap.Int("pages", n), zap.Duration("took", time.Since(start)))
	}
	return err == nil
}

// copyTries bounds the attempts of copyPlacement.
const copyTries = 5

// parentRode bounds when pages served under parent, g's parent, last
// carried blocks of the generation before it riding along: the latest
// its ride could end (see rideEnd), zero if nothing rode on them. Not
// knowing parent (nil, or not g's parent), it is the end of time: pages
// carried over change now.
func (h *Handler) parentRode(g, parent *generation) time.Time {
	switch {
	case h.Overlap < 0:
		return time.Time{}
	case parent == nil || parent.id != g.previous:
		return endOfTime
	case parent.previous == "":
		return time.Time{}
	case h.Audit != nil:
		return parent.time.Add(h.maxOverlap())
	}
	return parent.time.Add(time.Duration(h.Overlap))
}

// endOfTime is a time after any clock reading.
var endOfTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// attachPlacer gives a loaded generation its live placement state,
// continuing its parent's.
func (h *Handler) attachPlacer(g *generation) {
	g.placer = newPlacer(h.storage, h.storagePrefix()+"placement/"+g.id+"/", g, h.PageBudget, h.Copies, !h.Fill, h.now)
	if g.previous != "" {
		g.placer.parent = h.storagePrefix() + "placement/" + g.previous + "/"
	}
	g.placer.onChange = func(counts []int) {
		if h.gen.Load() == g {
			h.metrics.coverage(h.Name, counts)
		}
	}
}

// prunePlacement deletes the placement state of generations the bundle
// no longer holds (other instances may still serve any it holds), other
// than the current and previous one, and only that of this site and key:
// two sites that share storage and a name (bundle mode, one bundle path
// on two machines) each keep their own. A state that names neither (made
// before states named them) is deleted as before; one signed by another
// key of the same site (before a key rotation) is kept.
func (h *Handler) prunePlacement(cur, prev *generation) {
	keep, err := h.src.generations(h.ctx)
	if err != nil {
		h.logger.Warn("listing lazarus generations; old placement state kept", zap.Error(err))
		return
	}
	keep = append(keep, cur.id)
	if prev != nil {
		keep = append(keep, prev.id)
	}
	dir := h.storagePrefix() + "placement"
	keys, err := h.storage.List(h.ctx, dir, false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.logger.Warn("listing old lazarus placement state", zap.Error(err))
	}
	for _, k := range keys {
		if slices.Contains(keep, strings.TrimPrefix(k, dir+"/")) || !h.ownPlacement(k, cur) {
			continue
		}
		if err := h.storage.Delete(h.ctx, k); err != nil && !errors.Is(err, fs.ErrNotExist) {
			h.logger.Warn("deleting old lazarus placement state", zap.String("key", k), zap.Error(err))
		}
	}
}

// ownPlacement reports whether the placement state under dir belongs to
// cur's site and key, or names none (made before states named them, or
// records left without a state). An unreadable state is not ours to
// delete.
func (h *Handler) ownPlacement(dir string, cur *generation) bool {
	v, err := loadLimited(h.ctx, h.storage, dir+"/state", maxStateBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errTooLarge):
		return true
	case err != nil:
		return false
	}
	var st placerState
	if len(v) > maxStateBytes || json.Unmarshal(v, &st) != nil {
		return true
	}
	return st.Site == "" && st.KeyID == "" || st.Site == cur.site && st.KeyID == cur.keyID
}

// crawling reports whether an archive crawler was seen within CrawlSession.
func (h *Handler) crawling() bool {
	last := h.crawler.Load()
	return last != 0 && h.now().UnixNano()-last < int64(h.CrawlSession)
}

// noteCrawler records a request from an archive crawler.
func (h *Handler) noteCrawler(r *http.Request) {
	ua := strings.ToLower(r.UserAgent())
	for _, c := range h.Crawlers {
		if c != "" && strings.Contains(ua, strings.ToLower(c)) {
			h.crawler.Store(h.now().UnixNano())
			return
		}
	}
}
