package caddymodule

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestGenerationSwitch: a new generation in current is used once
// ReloadInterval has passed, not before.
func TestGenerationSwitch(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	old := serve(t, h, &page{body: html}, "GET", "/a", nil)
	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
	f.inject(t)
	newID, err := bundleAt(f.bundle).current(context.Background())
	if err != nil || newID == oldID {
		t.Fatalf("injector did not make a new generation: %v", err)
	}
	same := serve(t, h, &page{body: html}, "GET", "/a", nil)
	if !bytes.Equal(same.Body.Bytes(), old.Body.Bytes()) {
		t.Fatal("switched before the reload interval")
	}
	now = now.Add(DefaultReloadInterval)
	w := serve(t, h, staticPage(), "GET", "/a", nil)
	if h.gen.Load().id != newID || w.Header().Get("ETag") == old.Header().Get("ETag") {
		t.Fatal("new generation not picked up")
	}
	if w.Header().Get("Last-Modified") != genTime.Add(time.Hour).Format("Mon, 02 Jan 2006 15:04:05 GMT") {
		t.Fatalf("Last-Modified %s", w.Header().Get("Last-Modified"))
	}
}

// staticPage is the test page with an upstream Last-Modified a day
// before the fixture's generation, as file_server sends.
func staticPage() *page {
	return &page{body: html, header: http.Header{"Last-Modified": {genTime.Add(-24 * time.Hour).Format(http.TimeFormat)}}}
}

// TestBadBundle: a broken current keeps the loaded generation.
func TestBadBundle(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	serve(t, h, &page{body: html}, "GET", "/a", nil)
	g := h.gen.Load()
	for _, bad := range []string{"", "zz\n", "00000000000000000000000000000000\n"} {
		writeFile(t, filepath.Join(f.bundle, "current"), []byte(bad))
		now = now.Add(DefaultReloadInterval)
		// Expected: the error is logged and the old generation stays.
		if w := serve(t, h, &page{body: html}, "GET", "/a", nil); !hasComments(w.Body.Bytes()) || h.gen.Load() != g {
			t.Fatalf("current %q: generation dropped", bad)
		}
	}
}

func TestArmoredSize(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{1, 2, 3, 56, 57, 58, 1024, 4000} {
		if err := os.WriteFile(filepath.Join(dir, "b"), bytes.Repeat([]byte{7}, n), 0o644); err != nil {
			t.Fatal(err)
		}
		g := &generation{id: "g", src: bundleAt(dir), blocks: []blockFile{{key: "b", size: int64(n)}}}
		c := newBlockCache(1 << 20)
		a, err := c.armored(context.Background(), g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(a)+1) != armoredSize(int64(n)) {
			t.Errorf("%d bytes: armored %d+1, computed %d", n, len(a), armoredSize(int64(n)))
		}
	}
}

// pageBlocks returns the blocks a served page carries, parsed.
func pageBlocks(t *testing.T, page []byte) []*block.Block {
	t.Helper()
	var out []*block.Block
	for f := range htmlblock.All(page) {
		if f.Err != nil || f.Kind != htmlblock.KindBlock {
			continue
		}
		b, err := block.Parse(f.Payload)
		if err != nil {
			t.Fatalf("a served block does not parse: %v", err)
		}
		out = append(out, b)
	}
	return out
}

// generations returns the generation ids of the blocks on a page.
func generations(t *testing.T, page []byte) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, b := range pageBlocks(t, page) {
		out[manifest.ID(b.Generation).String()]++
	}
	return out
}

// TestMakeBeforeBreak: after a switch, pages carry the previous
// generation's blocks beside the new ones until Overlap after the new
// generation's time; an instance started during the overlap serves the
// same bytes; when the overlap ends the page changes and says so.
func TestMakeBeforeBreak(t *testing.T) {
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	h := newHandlerOn(t, f.bundle, st)
	now := genTime.Add(time.Minute)
	h.now = func() time.Time { return now }
	serve(t, h, &page{body: html}, "GET", "/a", nil)
	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	newTime := genTime.Add(time.Hour)
	f.opts.Now = func() time.Time { return newTime }
	f.inject(t)
	now = newTime.Add(DefaultReloadInterval)
	w := serve(t, h, &page{body: html}, "GET", "/a", nil)
	newID := h.gen.Load().id
	got := generations(t, w.Body.Bytes())
	if got[oldID] == 0 || got[newID] == 0 {
		t.Fatalf("during the overlap: blocks by generation %v, want both %s and %s", got, oldID, newID)
	}
	restarted := newHandlerOn(t, f.bundle, st)
	restarted.now = h.now
	if r := serve(t, restarted, &page{body: html}, "GET", "/a", nil); !bytes.Equal(r.Body.Bytes(), w.Body.Bytes()) {
		t.Fatal("an instance started during the overlap serves other bytes")
	}
	now = newTime.Add(DefaultOverlap)
	w2 := serve(t, h, staticPage(), "GET", "/a", nil)
	if got := generations(t, w2.Body.Bytes()); got[oldID] != 0 {
		t.Fatalf("after the overlap: blocks by generation %v, want none of %s", got, oldID)
	}
	if w2.Header().Get("ETag") == w.Header().Get("ETag") || w2.Header().Get("Last-Modified") != now.Format(http.TimeFormat) {
		t.Fatalf("overlap end not signalled: ETag %s, Last-Modified %s", w2.Header().Get("ETag"), w2.Header().Get("Last-Modified"))
	}
}

// TestNotice: the visible notice carries the day the page's blocks last
// changed and moves with them.
func TestNotice(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	h.Notice = "Backup updated {date}"
	now := genTime.Add(time.Minute)
	h.now = func() time.Time { return now }
	w := serve(t, h, &page{body: html}, "GET", "/a", nil)
	if !strings.Contains(w.Body.String(), `<p data-lazarus-notice="">Backup updated `+genTime.Format("2006-01-02")+"</p>") {
		t.Fatalf("no notice: %.200s", w.Body.String())
	}
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new\n"))
	later := genTime.Add(72 * time.Hour)
	f.opts.Now = func() time.Time { return later }
	f.inject(t)
	now = later.Add(time.Minute)
	if w := serve(t, h, &page{body: html}, "GET", "/a", nil); !strings.Contains(w.Body.String(), "Backup updated "+later.Format("2006-01-02")) {
		t.Fatal("the notice did not move with the blocks")
	}
}

// TestCrawlerHoldsSwitch: while an archive crawler sweeps the site the
// generation does not change under it; it changes once the crawler has
// been quiet for a crawl session.
func TestCrawlerHoldsSwitch(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	crawler := map[string]string{"User-Agent": "Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot)"}
	serve(t, h, &page{body: html}, "GET", "/a", crawler)
	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
	f.inject(t)
	now = now.Add(DefaultReloadInterval)
	serve(t, h, &page{body: html}, "GET", "/b", crawler)
	if h.gen.Load().id != oldID {
		t.Fatal("switched generation in the middle of a crawler's sweep")
	}
	now = now.Add(DefaultCrawlSession + DefaultReloadInterval)
	serve(t, h, &page{body: html}, "GET", "/a", nil)
	if h.gen.Load().id == oldID {
		t.Fatal("did not switch after the crawler went quiet")
	}
}

// TestTwoInstancesIdentical: two Caddy instances serving one bundle (as
// behind a load balancer) give byte-identical pages and validators, for
// planned and unplanned pages alike.
func TestTwoInstancesIdentical(t *testing.T) {
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	a, b := newHandlerOn(t, f.bundle, st), newHandlerOn(t, f.bundle, st)
	for _, path := range []string{"/", "/a", "/never/planned.html"} {
		wa := serve(t, a, &page{body: html}, "GET", path, nil)
		wb := serve(t, b, &page{body: html}, "GET", path, nil)
		if !bytes.Equal(wa.Body.Bytes(), wb.Body.Bytes()) || wa.Header().Get("ETag") != wb.Header().Get("ETag") {
			t.Fatalf("%s: the two instances differ", path)
		}
		if !hasComments(wa.Body.Bytes()) {
			t.Fatalf("%s: no blocks", path)
		}
	}
}

// TestCrawlerHoldBounded: a User-Agent is no evidence: requests claiming
// to be CCBot every few seconds hold a switch for at most MaxCrawlHold,
// then the new generation is served anyway.
func TestCrawlerHoldBounded(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	spoofed := map[string]string{"User-Agent": "CCBot/2.0 (https://commoncrawl.org/faq/)"}
	serve(t, h, &page{body: html}, "GET", "/a", spoofed)
	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
	f.inject(t)
	start := now
	for now.Sub(start) <= DefaultMaxCrawlHold+2*DefaultReloadInterval {
		now = now.Add(DefaultReloadInterval)
		serve(t, h, &page{body: html}, "GET", "/a", spoofed)
		if h.gen.Load().id != oldID {
			if now.Sub(start) < DefaultCrawlSession {
				t.Fatal("switched while a crawler sweeps, well within the hold limit")
			}
			return
		}
	}
	t.Fatalf("still on the old generation %v after a crawler request every %v", now.Sub(start), DefaultReloadInterval)
}

// TestUnreadableBlocks: a page never goes out with blocks of a generation
// the handler cannot read whole; when storage fails for good, the site
// stays up and the page goes out unchanged, marked no-store.
func TestUnreadableBlocks(t *testing.T) {
	crawler := map[string]string{"User-Agent": "Mozilla/5.0 (compatible; archive.org_bot)"}
	t.Run("held generation pruned", func(t *testing.T) {
		// Expected: the handler leaves a generation it cannot read at
		// once, crawler or not, and the page carries the new one's blocks.
		f := newFixture(t)
		h := newHandler(t, f.bundle)
		now := time.Unix(1000, 0)
		h.now = func() time.Time { return now }
		serve(t, h, &page{body: html}, "GET", "/a", crawler)
		oldID := h.gen.Load().id
		writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
		f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
		f.inject(t)
		newID, _ := bundleAt(f.bundle).current(context.Background())
		now = now.Add(DefaultReloadInterval)
		serve(t, h, &page{body: html}, "GET", "/a", crawler)
		if h.gen.Load().id != oldID {
			t.Fatal("the crawler did not hold the switch")
		}
		if err := os.RemoveAll(filepath.Join(f.bundle, "generations", oldID)); err != nil {
			t.Fatal(err)
		}
		w := serve(t, h, &page{body: html}, "GET", "/b", crawler)
		if got := generations(t, w.Body.Bytes()); w.Code != 200 || got[newID] == 0 || got[oldID] != 0 {
			t.Fatalf("status %d, blocks by generation %v; want only %s", w.Code, got, newID)
		}
	})
	t.Run("current generation's blocks gone", func(t *testing.T) {
		// Expected: no generation to fall back on (storage lost the
		// blocks): the site stays up; the page goes out as the file server
		// made it, without any comment, marked no-store so no cache keeps
		// it, and counted as block_unavailable.
		f := newFixture(t, "/", "/a.html")
		site := t.TempDir()
		writeFile(t, filepath.Join(site, "index.html"), []byte(html))
		writeFile(t, filepath.Join(site, "a.html"), []byte(html))
		addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q}, {"handler": "file_server", "root": %q}`, f.bundle, site))
		if _, body := get(t, "GET", "http://"+addr+"/", nil); !hasComments(body) {
			t.Fatal("no blocks before the damage")
		}
		id, _ := bundleAt(f.bundle).current(context.Background())
		if err := os.RemoveAll(filepath.Join(f.bundle, "generations", id, "blocks")); err != nil {
			t.Fatal(err)
		}
		resp, body := get(t, "GET", "http://"+addr+"/a.html", nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" ||
			string(body) != html || strings.HasPrefix(resp.Header.Get("ETag"), `"lz-`) {
			t.Fatalf("status %d, headers %v, body %.80q", resp.StatusCode, resp.Header, body)
		}
	})
	t.Run("riding generation gone", func(t *testing.T) {
		// Expected: the previous generation is extra: without it the page
		// carries the current generation's blocks alone.
		f := newFixture(t)
		h := newHandler(t, f.bundle)
		now := genTime.Add(time.Minute)
		h.now = func() time.Time { return now }
		serve(t, h, &page{body: html}, "GET", "/a", nil)
		oldID := h.gen.Load().id
		writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
		f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
		f.inject(t)
		now = genTime.Add(time.Hour + DefaultReloadInterval)
		if got := generations(t, serve(t, h, &page{body: html}, "GET", "/a", nil).Body.Bytes()); got[oldID] == 0 {
			t.Fatalf("no overlap to test: %v", got)
		}
		newID := h.gen.Load().id
		if err := os.RemoveAll(filepath.Join(f.bundle, "generations", oldID)); err != nil {
			t.Fatal(err)
		}
		h.cache, h.pages = newBlockCache(defaultCacheBytes), newBlockCache(defaultPageCacheBytes)
		w := serve(t, h, &page{body: html}, "GET", "/c", nil)
		if got := generations(t, w.Body.Bytes()); w.Code != 200 || got[newID] == 0 || got[oldID] != 0 {
			t.Fatalf("status %d, blocks by generation %v; want only %s", w.Code, got, newID)
		}
	})
}

// firstBlock is the path of a block file of the bundle's current
// generation.
func firstBlock(t *testing.T, bundle string) string {
	t.Helper()
	id, err := bundleAt(bundle).current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(bundle, "generations", id, "blocks", "app", "0.0")
}

// TestGenerationNeedsEveryBlock: a generation is used whole or not at
// all. With a block file missing (a copy in progress) it is not loaded
// yet, so it is neither served nor placed without that block; stray files
// under blocks/ are ignored. Before the fix the generation was loaded
// with 47 of its 48 blocks, its placement state written with 47 counts,
// and every instance that later read all 48 refused that state: new pages
// got no blocks for the generation's life.
func TestGenerationNeedsEveryBlock(t *testing.T) {
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	blk := firstBlock(t, f.bundle)
	hidden := filepath.Join(t.TempDir(), "hidden")
	if err := os.Rename(blk, hidden); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(filepath.Dir(blk), "0.1.tmp"), []byte("a copy in progress"))
	writeFile(t, filepath.Join(filepath.Dir(blk), "README"), []byte("stray"))
	a := newHandlerOn(t, f.bundle, st)
	// Expected: not loaded: the page passes through, nothing is placed.
	if w := serve(t, a, &page{body: html}, "GET", "/x", nil); hasComments(w.Body.Bytes()) || a.gen.Load() != nil {
		t.Fatal("a generation with a block missing was served")
	}
	if err := os.Rename(hidden, blk); err != nil {
		t.Fatal(err)
	}
	b := newHandlerOn(t, f.bundle, st)
	for _, h := range []*Handler{a, b} {
		h.lastCheck.Store(0) // reload now
		for _, p := range []string{"/y", "/z"} {
			if w := serve(t, h, &page{body: html}, "GET", p, nil); !hasComments(w.Body.Bytes()) {
				t.Fatalf("%s: no blocks once the generation is whole (stray files beside it)", p)
			}
		}
	}
}

// flakyLoads is storage whose next failures Loads of keys containing
// part fail.
type flakyLoads struct {
	certmagic.Storage
	part     string
	failures atomic.Int64
}

func (s *flakyLoads) Load(ctx context.Context, key string) ([]byte, error) {
	if strings.Contains(key, s.part) && s.failures.Add(-1) >= 0 {
		return nil, fs.ErrPermission
	}
	return s.Storage.Load(ctx, key)
}

// overlapFixture makes a second generation and returns a handler serving
// it during the overlap, the previous generation's id and the clock.
func overlapFixture(t *testing.T, f *fixture, h *Handler) (string, *time.Time) {
	t.Helper()
	now := genTime.Add(time.Minute)
	h.now = func() time.Time { return now }
	serve(t, h, &page{body: html}, "GET", "/a", nil)
	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
	f.inject(t)
	now = genTime.Add(2 * time.Hour)
	return oldID, &now
}

// TestRidingDropped: a riding block that cannot be read once is read
// again, and the ride goes on; one that cannot be read again ends the
// previous generation's ride on this instance, and pages that carried it
// change with a later Last-Modified. Before the fix one failed read
// dropped it, and the changed page kept its Last-Modified, so a client
// validating by date got 304 for bytes it did not have.
func TestRidingDropped(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	oldID, now := overlapFixture(t, f, h)
	flaky := &flakyLoads{Storage: h.src.st, part: "generations/" + oldID + "/blocks/"}
	h.src.st = flaky
	first := serve(t, h, staticPage(), "GET", "/c", nil)
	if generations(t, first.Body.Bytes())[oldID] == 0 {
		t.Fatal("no overlap to test")
	}
	// Expected: one failed read: read again, the page unchanged.
	flaky.failures.Store(1)
	h.cache, h.pages = newBlockCache(defaultCacheBytes), newBlockCache(defaultPageCacheBytes)
	if again := serve(t, h, staticPage(), "GET", "/c", nil); again.Header().Get("ETag") != first.Header().Get("ETag") {
		t.Fatal("one failed read changed the page")
	}
	// Expected: failures on every read: the ride ends; the page changes,
	// later Last-Modified, and If-Modified-Since of the old one gets 200.
	flaky.failures.Store(1 << 20)
	*now = now.Add(time.Hour)
	h.cache, h.pages = newBlockCache(defaultCacheBytes), newBlockCache(defaultPageCacheBytes)
	serve(t, h, staticPage(), "GET", "/b", nil)
	second := serve(t, h, staticPage(), "GET", "/c", nil)
	lm1, _ := http.ParseTime(first.Header().Get("Last-Modified"))
	lm2, _ := http.ParseTime(second.Header().Get("Last-Modified"))
	if generations(t, second.Body.Bytes())[oldID] != 0 || !lm2.After(lm1) {
		t.Fatalf("after the ride ended: old blocks %d, Last-Modified %v (was %v)", generations(t, second.Body.Bytes())[oldID], lm2, lm1)
	}
	if w := serve(t, h, staticPage(), "GET", "/c", map[string]string{"If-Modified-Since": first.Header().Get("Last-Modified")}); w.Code != 200 {
		t.Fatalf("If-Modified-Since of the page before: %d, want 200", w.Code)
	}
}

// TestOverlapEndKeepsPagesWithoutRiders: a page with no room for any of
// the previous generation's blocks keeps its bytes and validators when
// the overlap ends; before the fix its ETag and Last-Modified changed
// though its bytes did not.
func TestOverlapEndKeepsPagesWithoutRiders(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
	f.inject(t) // a second generation, riding the first
	after := newHandler(t, f.bundle)
	after.now = func() time.Time { return genTime.Add(time.Hour + DefaultOverlap + time.Hour) }
	plain := serve(t, after, staticPage(), "GET", "/c", nil)
	during := newHandler(t, f.bundle)
	during.now = func() time.Time { return genTime.Add(2 * time.Hour) }
	during.MaxPageBytes = int64(plain.Body.Len()) + noticeReserve + 10 // no room for a riding block
	after.MaxPageBytes = during.MaxPageBytes
	d := serve(t, during, staticPage(), "GET", "/c", nil)
	a := serve(t, after, staticPage(), "GET", "/c", nil)
	if !bytes.Equal(d.Body.Bytes(), a.Body.Bytes()) {
		t.Fatal("the page carries riding blocks: nothing to test")
	}
	if d.Header().Get("ETag") != a.Header().Get("ETag") || d.Header().Get("Last-Modified") != a.Header().Get("Last-Modified") {
		t.Fatalf("same bytes, other validators: during ETag %s LM %s, after ETag %s LM %s", d.Header().Get("ETag"),
			d.Header().Get("Last-Modified"), a.Header().Get("ETag"), a.Header().Get("Last-Modified"))
	}
}

// TestBundlePathSharedBySites: two sites whose bundles sit at the same
// path on two machines, sharing Caddy's storage, share the default name
// (a hash of the path) but not their placement: each prunes only its own
// site's. Before the fix the second site deleted the first one's
// placement state, and the first one's pages changed blocks.
func TestBundlePathSharedBySites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bundle")
	siteA, siteB := newFixture(t).bundle, newFixture(t).bundle
	st := &certmagic.FileStorage{Path: t.TempDir()}
	use := func(bundle string) *Handler {
		t.Helper()
		os.RemoveAll(path)
		if err := os.CopyFS(path, os.DirFS(bundle)); err != nil {
			t.Fatal(err)
		}
		h := newHandlerOn(t, path, st)
		h.PageBudget = 12000 // a few blocks a page, so pages differ
		return h
	}
	a := use(siteA)
	before := serve(t, a, &page{body: html}, "GET", "/post", nil)
	b := use(siteB)
	serve(t, b, &page{body: html}, "GET", "/post", nil)
	a2 := use(siteA) // a restart, or another instance of site A
	serve(t, a2, &page{body: html}, "GET", "/other", nil)
	after := serve(t, a2, &page{body: html}, "GET", "/post", nil)
	if a.Name != b.Name {
		t.Fatalf("names %s and %s: the case to test is a shared name", a.Name, b.Name)
	}
	// Expected: site A's page keeps its blocks (its record is still
	// there: /other, placed first now, cannot take them).
	if !bytes.Equal(before.Body.Bytes(), after.Body.Bytes()) {
		t.Fatal("site A's placement was deleted by site B")
	}
}
