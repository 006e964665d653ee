package caddymodule

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestServeHistory: every page version the handler serves with blocks is
// in the serve history in Caddy's storage under the digest of the bytes
// sent, with its path and exactly the manifest and blocks parsed from
// those bytes (during the overlap, both generations'); serving a version
// again, from this instance or a restarted one, adds nothing; a page
// that passes unchanged is not recorded. (Pages the plan does not name
// are recorded once the root links to them: TestServeHistoryUnverified.)
func TestServeHistory(t *testing.T) {
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	h := newHandlerOn(t, f.bundle, st)
	now := genTime.Add(time.Minute)
	h.now = func() time.Time { return now }
	type served struct {
		path string
		body []byte
	}
	bodies := map[string]served{} // by digest
	// The root links to the pages the plan does not name: verified.
	const links = `<a href="/not-planned">n</a><a href="/dir/with%20space/">d</a>`
	serveBody := func(h *Handler, path string) []byte {
		t.Helper()
		w := serve(t, h, &page{body: "<html><body><p>" + path + "</p>" + links + "</body></html>"}, "GET", path, nil)
		if !hasComments(w.Body.Bytes()) {
			t.Fatalf("%s: served without blocks", path)
		}
		return w.Body.Bytes()
	}
	get := func(h *Handler, path string) {
		t.Helper()
		b := serveBody(h, path)
		bodies[history.SumsOf(b).SHA1] = served{path, b}
	}
	paths := []string{"/", "/a", "/b", "/c", "/not-planned", "/dir/with%20space/"}
	for range 2 {
		for _, p := range paths {
			get(h, p)
		}
	}
	serve(t, h, &page{body: html, header: map[string][]string{"X-Robots-Tag": {"noarchive"}}}, "GET", "/private", nil)
	h.history.wait()
	ix := loadHistory(t, st, h.Name, len(paths), 1)
	first := ix.Records

	restarted := newHandlerOn(t, f.bundle, st)
	restarted.now = func() time.Time { return now.Add(time.Hour) }
	for _, p := range paths {
		get(restarted, p)
	}
	restarted.history.wait()
	if got := historyCount(t, restarted, "known"); got != len(paths) {
		t.Errorf("restarted instance: %d versions known, want %d", got, len(paths))
	}
	ix = loadHistory(t, st, h.Name, len(paths), 1)
	for d, rec := range ix.Records {
		if !rec.Time.Equal(first[d].Time) {
			t.Errorf("%s: time %v changed to %v by the restarted instance", rec.URL, first[d].Time, rec.Time)
		}
	}

	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	newTime := genTime.Add(time.Hour)
	f.opts.Now = func() time.Time { return newTime }
	f.inject(t)
	now = newTime.Add(DefaultReloadInterval)
	get(h, "/a")
	h.history.wait()
	ix = loadHistory(t, st, h.Name, len(paths)+1, 2)
	newID := h.gen.Load().id
	riding := 0
	for digest, v := range bodies {
		rec, ok := ix.Lookup(digest)
		if !ok {
			t.Fatalf("%s: served version %s not in the history", v.path, digest)
		}
		if rec.URL != v.path {
			t.Errorf("recorded as %s, want %s", rec.URL, v.path)
		}
		if by256, ok := ix.Lookup(history.SHA256.Of(v.body).String()); !ok || by256.Digest != digest {
			t.Errorf("%s: served version %s not found by its SHA-256 (%v)", v.path, digest, ok)
		}
		checkRecord(t, ix, rec, v.body)
		if len(rec.Blocks[oldID]) > 0 && len(rec.Blocks[newID]) > 0 {
			riding++
		}
	}
	if riding != 1 {
		t.Errorf("%d versions carry both generations, want /a's", riding)
	}
}

// loadHistory loads the handler's history and
// wants records and manifests of it, none damaged.
func loadHistory(t *testing.T, st certmagic.Storage, name string, records, manifests int) *history.Index {
	t.Helper()
	ix, err := history.Load(context.Background(), newHistoryStore(st, name))
	if err != nil {
		t.Fatal(err)
	}
	if ix.Skipped != 0 || ix.Truncated || len(ix.Records) != records || len(ix.Manifests) != manifests {
		t.Fatalf("history: %d skipped, truncated %v, %d records, %d manifests; want 0, false, %d, %d",
			ix.Skipped, ix.Truncated, len(ix.Records), len(ix.Manifests), records, manifests)
	}
	return ix
}

// checkRecord compares a record with the comments parsed from the page
// it names: the manifest's generation, and each block (by segment id,
// through the recorded manifests) in page order.
func checkRecord(t *testing.T, ix *history.Index, rec history.Record, page []byte) {
	t.Helper()
	var onPage []string
	manifestOf := ""
	for c := range htmlblock.All(page) {
		switch c.Kind {
		case htmlblock.KindManifest:
			s, err := manifest.Parse(c.Payload)
			if err != nil {
				t.Fatal(err)
			}
			manifestOf = s.Manifest.Generation.String()
		case htmlblock.KindBlock:
			b, err := block.Parse(c.Payload)
			if err != nil {
				t.Fatal(err)
			}
			onPage = append(onPage, fmt.Sprintf("%x:%s/%d/%d", b.SegmentID, b.Name, b.Stripe, b.Shard))
		}
	}
	if rec.Manifest != manifestOf {
		t.Errorf("%s: manifest %q recorded, page carries %q", rec.URL, rec.Manifest, manifestOf)
	}
	n := 0
	for gen, refs := range rec.Blocks {
		s, err := manifest.Parse(ix.Manifests[gen])
		if err != nil {
			t.Fatalf("%s: generation %s's manifest not recorded: %v", rec.URL, gen, err)
		}
		var want, got []string
		for _, r := range refs {
			name, _, _ := strings.Cut(r, "/")
			i := slices.IndexFunc(s.Manifest.Segments, func(seg manifest.Segment) bool { return seg.Name == name })
			if i < 0 {
				t.Fatalf("%s: block %s: no segment %s in generation %s", rec.URL, r, name, gen)
			}
			want = append(want, fmt.Sprintf("%x:%s", s.Manifest.Segments[i].ID[:], r))
		}
		for _, p := range onPage {
			if slices.Contains(want, p) {
				got = append(got, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: generation %s: recorded %v, page order %v", rec.URL, gen, want, got)
		}
		n += len(refs)
	}
	if n != len(onPage) {
		t.Errorf("%s: %d blocks recorded, %d on the page", rec.URL, n, len(onPage))
	}
}

// historyCount reads the handler's history_versions_total for result.
func historyCount(t *testing.T, h *Handler, result string) int {
	t.Helper()
	return int(metricValue(t, h.metrics.history.WithLabelValues(h.Name, result)))
}

// TestServeHistoryUnverified: pages no verified page links to (every
// path of a try_files site) get blocks but are not recorded, so request
// traffic cannot fill the history; once the root links to one, it is.
func TestServeHistoryUnverified(t *testing.T) {
	f := newFixture(t)
	st := newMemStorage()
	h := newHandlerOn(t, f.bundle, st)
	serve(t, h, &page{body: html}, "GET", "/", nil)
	for i := range 50 {
		w := serve(t, h, &page{body: fmt.Sprintf("<html><body><p>%d</p></body></html>", i)}, "GET", fmt.Sprintf("/random/%d", i), nil)
		if !hasComments(w.Body.Bytes()) {
			t.Fatalf("/random/%d served without blocks", i)
		}
	}
	h.history.wait()
	ix := loadHistory(t, st, h.Name, 1, 1)
	if len(ix.Versions("/")) != 1 {
		t.Fatalf("records %v, want the root's only", ix.Records)
	}
	serve(t, h, &page{body: `<html><body><a href="/random/7">r</a></body></html>`}, "GET", "/", nil)
	serve(t, h, &page{body: html}, "GET", "/random/7", nil)
	h.history.wait()
	ix = loadHistory(t, st, h.Name, 3, 1)
	if len(ix.Versions("/random/7")) != 1 {
		t.Fatalf("/random/7, linked from the root now, not recorded: %v", ix.Records)
	}
}

// TestServeHistoryFullManifest: with the history at history.MaxRecords
// (no page version is recorded any more), a new generation's manifest is
// still stored once it is served, so status, which takes the newest
// generation from the manifests, never takes an older one for it.
func TestServeHistoryFullManifest(t *testing.T) {
	f := newFixture(t)
	st := newMemStorage()
	h := newHandlerOn(t, f.bundle, st)
	now := genTime.Add(time.Minute)
	h.now = func() time.Time { return now }
	serve(t, h, &page{body: html}, "GET", "/", nil)
	h.history.wait()
	loadHistory(t, st, h.Name, 1, 1)
	h.history.total = history.MaxRecords // full, as ~1M page versions make it

	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	newTime := genTime.Add(time.Hour)
	f.opts.Now = func() time.Time { return newTime }
	f.inject(t)
	now = newTime.Add(DefaultReloadInterval)
	serve(t, h, &page{body: html}, "GET", "/", nil)
	h.history.wait()
	if got := historyCount(t, h, "full"); got != 1 {
		t.Fatalf("%d versions found the history full, want 1", got)
	}
	ix := loadHistory(t, st, h.Name, 1, 2)
	if _, ok := ix.Manifests[h.gen.Load().id]; !ok {
		t.Fatalf("the new generation %s's manifest is not in the full history", h.gen.Load().id)
	}
}

// TestServeHistoryQueueBounded: with the recorder stalled, versions past
// historyQueue (or past historyQueueBytes of pages) are dropped and
// counted, never blocking the request; a dropped version is forgotten, so
// serving it again once there is room records it.
func TestServeHistoryQueueBounded(t *testing.T) {
	f := newFixture(t)
	st := newMemStorage()
	h := newHandlerOn(t, f.bundle, st)
	serve(t, h, &page{body: html}, "GET", "/a", nil) // loads the generation
	h.history.wait()
	g := h.gen.Load()
	s := newServeHistory(h)
	s.start.Do(func() {}) // stalled: nothing takes from the queue
	l := &layout{g: g, cur: &assignment{blocks: []int{0, 1}, manifest: true}}
	page := []byte("<html><body>small</body></html>")
	for i := range historyQueue + 5 {
		s.served(fmt.Sprintf("/p%d", i), `"e"`, false, l, page)
	}
	if got := historyCount(t, h, "dropped"); got != 5 {
		t.Fatalf("%d dropped, want 5", got)
	}
	s.served("/p0", `"e"`, false, l, page) // queued already: not counted again
	if got := historyCount(t, h, "dropped"); got != 5 {
		t.Fatalf("a queued version served again: %d dropped, want 5", got)
	}

	go s.run()
	s.wait()
	if got := historyCount(t, h, "recorded"); got != historyQueue+1 { // /a's, then the queue
		t.Fatalf("%d recorded, want %d", got, historyQueue+1)
	}
	s.served(fmt.Sprintf("/p%d", historyQueue), `"e"`, false, l, page) // dropped before: queued now
	s.wait()
	if got := historyCount(t, h, "recorded"); got != historyQueue+2 {
		t.Fatalf("a dropped version served again: %d recorded, want %d", got, historyQueue+2)
	}

	big := newServeHistory(h)
	big.start.Do(func() {})
	large := make([]byte, 1<<20)
	for i := range historyQueueBytes>>20 + 3 {
		big.served(fmt.Sprintf("/big%d", i), `"e"`, false, l, large)
	}
	if got := historyCount(t, h, "dropped"); got != 5+3 {
		t.Fatalf("%d dropped after 1 MiB pages past %d bytes, want %d", got, historyQueueBytes, 5+3)
	}
}

// TestServeHistoryPerPath: a page whose bytes change on every request (a
// CSRF token) keeps its newest historyPerPath versions.
func TestServeHistoryPerPath(t *testing.T) {
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	h := newHandlerOn(t, f.bundle, st)
	up := newNonced(100)
	var digests []string
	for range historyPerPath + 6 {
		w := serve(t, h, up, "GET", "/a", nil)
		digests = append(digests, history.SumsOf(w.Body.Bytes()).SHA1)
		h.history.wait() // one at a time, so storage times order them
	}
	ix, err := history.Load(context.Background(), newHistoryStore(st, h.Name))
	if err != nil {
		t.Fatal(err)
	}
	vs := ix.Versions("/a")
	if len(vs) != historyPerPath || len(ix.Records) != historyPerPath {
		t.Fatalf("%d versions of /a kept (%d records), want %d", len(vs), len(ix.Records), historyPerPath)
	}
	for i, d := range digests {
		_, ok := ix.Lookup(d)
		if want := i >= 6; ok != want {
			t.Errorf("version %d kept %v, want %v (the newest %d)", i, ok, want, historyPerPath)
		}
	}
}

// BenchmarkServeHistorySeen is what the serve history adds to a request
// for a page version already queued or recorded: served's lookup.
func BenchmarkServeHistorySeen(b *testing.B) {
	f := newFixture(b)
	h := &Handler{Bundle: f.bundle, storage: newMemStorage()}
	if err := h.setup(); err != nil {
		b.Fatal(err)
	}
	g, err := h.src.loadGeneration(context.Background(), mustCurrent(b, h))
	if err != nil {
		b.Fatal(err)
	}
	l := &layout{g: g, cur: &assignment{blocks: []int{0, 1}, manifest: true}}
	page := []byte(html)
	key, etag := "/", `"lz-0123456789abcdef0123456789abcdef"` // verified: recorded
	h.history.served(key, etag, true, l, page)
	h.history.wait()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.history.served(key, etag, true, l, page)
		}
	})
	b.StopTimer()
	h.history.close()
}

func mustCurrent(b *testing.B, h *Handler) string {
	b.Helper()
	id, err := h.src.current(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return id
}

// TestServeHistoryClosedNeverStarts: a history closed before its worker
// started never starts one, so a request racing Cleanup (past the closed
// check when close runs) records nothing after Cleanup returned. A
// worker started late would take the queued version or the stop signal
// at random: 40 tries catch it.
func TestServeHistoryClosedNeverStarts(t *testing.T) {
	h := &Handler{Bundle: t.TempDir(), storage: newMemStorage()}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		s := newServeHistory(h)
		s.close()
		s.pending.Add(1) // as served queues it
		s.queue <- &servedVersion{versionKey: versionKey{"/", `"x"`}, page: []byte(html)}
		s.run1() // the racing request
		<-s.done
		if len(s.queue) != 1 {
			t.Fatal("a worker started after close took a queued version")
		}
	}
	if n := historyCount(t, h, "invalid") + historyCount(t, h, "recorded"); n != 0 {
		t.Fatalf("%d versions recorded after close", n)
	}
}
