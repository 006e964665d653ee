package caddymodule

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"go.uber.org/zap"
)

// segSpec is one segment of a test generation: its version (digest byte
// and the generation that made it) and its stripes of width blocks.
type segSpec struct {
	name           string
	version        byte
	madeBy         manifest.ID
	stripes, width int
	size           int64
}

// genID is a test generation id.
func genID(n byte) manifest.ID { return manifest.ID{15: n} }

// segGeneration is generation id of the segments segs, with no plan, its
// parent prev (zero for none).
func segGeneration(id, prev manifest.ID, segs ...segSpec) *generation {
	g := &generation{id: id.String(), time: genTime, manifest: make([]byte, 3000),
		manifestOn: map[string]bool{"/": true}, pages: map[string][]int{}, segments: map[string]manifest.Segment{}}
	if prev != (manifest.ID{}) {
		g.previous = prev.String()
	}
	for _, s := range segs {
		g.segments[s.name] = manifest.Segment{Name: s.name, ID: manifest.Digest{0: s.version}, Generation: s.madeBy, K: 2, M: s.width - 2, Stripes: s.stripes}
		for st := range s.stripes {
			for i := range s.width {
				g.blocks = append(g.blocks, blockFile{ref: manifest.BlockRef{Segment: s.name, Stripe: uint32(st), Shard: uint16(i)}, size: s.size})
			}
		}
	}
	slices.SortFunc(g.blocks, func(a, b blockFile) int { return compareRefs(a.ref, b.ref) })
	return g
}

// childPlacer is the placer of g continuing its parent's, as
// Handler.attachPlacer makes it, on the clock now.
func childPlacer(st certmagic.Storage, g *generation, budget int64, copies int, light bool, now time.Time) *placer {
	p := newPlacer(st, "lazarus/t/placement/"+g.id+"/", g, budget, copies, light, func() time.Time { return now })
	if g.previous != "" {
		p.parent = "lazarus/t/placement/" + g.previous + "/"
	}
	return p
}

// carryOver starts the placement state of p.g from its parent's (see
// startCarry) and copies the parent's records (see copyParent), as a
// switch does, the copy at once. It returns the parent's records copied.
func (p *placer) carryOver(ctx context.Context, parent *generation) (int, error) {
	if err := p.startCarry(ctx, parent); err != nil {
		return 0, err
	}
	return p.copyParent(ctx)
}

// refsOf returns the block references a page carries, by segment.
func refsOf(g *generation, a *assignment) map[string][]manifest.BlockRef {
	out := map[string][]manifest.BlockRef{}
	for _, i := range a.blocks {
		r := g.blocks[i].ref
		out[r.Segment] = append(out[r.Segment], r)
	}
	return out
}

// TestPlacementKeepsUnchangedSegments: under a new generation whose "app"
// is the same version and whose "db" changed, every page keeps its app
// blocks, the same references, and its db blocks stay at their places
// (the new version's), whatever order pages are served in; a page that
// carries only unchanged blocks keeps its since. Light and filled pages.
func TestPlacementKeepsUnchangedSegments(t *testing.T) {
	for _, light := range []bool{true, false} {
		t.Run(fmt.Sprintf("light=%v", light), func(t *testing.T) {
			st := &certmagic.FileStorage{Path: t.TempDir()}
			g1 := segGeneration(genID(1), manifest.ID{}, segSpec{"app", 1, genID(1), 3, 12, 1000}, segSpec{"db", 1, genID(1), 1, 4, 500})
			budget := 3 * armoredSize(1000)
			p1 := childPlacer(st, g1, budget, 1, light, genTime)
			before := map[string]*assignment{}
			for i := range 16 {
				key := fmt.Sprintf("/p%d", i)
				before[key] = mustAssign(t, p1, key, true)
			}
			g2 := segGeneration(genID(2), genID(1), segSpec{"app", 1, genID(1), 3, 12, 1000}, segSpec{"db", 2, genID(2), 1, 4, 500})
			later := genTime.Add(time.Hour)
			p2 := childPlacer(st, g2, budget, 1, light, later)
			if _, err := p2.carryOver(context.Background(), g1); err != nil {
				t.Fatal(err)
			}
			for i := 15; i >= 0; i-- { // another order
				key := fmt.Sprintf("/p%d", i)
				was, now := refsOf(g1, before[key]), refsOf(g2, mustAssign(t, p2, key, true))
				if !slices.Equal(was["app"], now["app"]) {
					t.Fatalf("%s: app blocks %v, were %v", key, now["app"], was["app"])
				}
				for _, r := range was["db"] {
					if !slices.Contains(now["db"], r) {
						t.Fatalf("%s: db block %v left its page (now %v)", key, r, now["db"])
					}
				}
				a := mustAssign(t, p2, key, true)
				if len(was["db"]) == 0 && len(now["db"]) == 0 && !a.since.Equal(before[key].since) {
					t.Fatalf("%s: the same blocks, since moved from %v to %v", key, before[key].since, a.since)
				}
			}
		})
	}
}

// TestPlacementContinuesAfterSwitch: pages first served after a switch
// get the app blocks no page had before, as if there had been no switch:
// a crawl that reads 8 new pages under each of 4 generations collects 32
// distinct blocks of the unchanged app, one per page. Without the carry
// over every generation started again at the same 8.
func TestPlacementContinuesAfterSwitch(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	app := segSpec{"app", 1, genID(1), 1, 40, 1000}
	budget := 2 * armoredSize(1000)
	seen := map[manifest.BlockRef]bool{}
	var prev manifest.ID
	var parent *generation
	for gen := byte(1); gen <= 4; gen++ {
		g := segGeneration(genID(gen), prev, app, segSpec{"db", gen, genID(gen), 1, 3, 200})
		p := childPlacer(st, g, budget, 1, true, genTime.Add(time.Duration(gen)*time.Hour))
		if _, err := p.carryOver(context.Background(), parent); err != nil {
			t.Fatal(err)
		}
		for i := range 8 {
			a := mustAssign(t, p, fmt.Sprintf("/g%d/p%d", gen, i), true)
			for _, r := range refsOf(g, a)["app"] {
				seen[r] = true
			}
		}
		prev, parent = genID(gen), g
	}
	if len(seen) != 32 {
		t.Fatalf("the crawl saw %d distinct app blocks, want 32", len(seen))
	}
}

// TestPlacementCarriesLatePages: a page first served under the parent
// after the carry-over (an instance not yet switched) keeps its blocks
// when it is first served under the new generation, and is counted then.
func TestPlacementCarriesLatePages(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	app := segSpec{"app", 1, genID(1), 2, 10, 1000}
	g1 := segGeneration(genID(1), manifest.ID{}, app)
	g2 := segGeneration(genID(2), genID(1), app)
	budget := 2 * armoredSize(1000)
	p1 := childPlacer(st, g1, budget, 3, false, genTime)
	mustAssign(t, p1, "/early", true)
	p2 := childPlacer(st, g2, budget, 3, false, genTime.Add(time.Hour))
	if n, err := p2.carryOver(context.Background(), g1); err != nil || n != 1 {
		t.Fatalf("carried %d records, %v; want 1", n, err)
	}
	late := mustAssign(t, p1, "/late", true)
	got := mustAssign(t, p2, "/late", true)
	if !slices.Equal(refsOf(g1, late)["app"], refsOf(g2, got)["app"]) {
		t.Fatalf("/late: %v under the new generation, %v under the parent", refsOf(g2, got), refsOf(g1, late))
	}
	state, err := p2.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if state.Records != 2 {
		t.Fatalf("%d records counted, want 2", state.Records)
	}
}

// TestPlacementTopsUpCarriedPages: a segment that grew a stripe under the
// new generation has no carrier among the carried pages; served again,
// they take its blocks in the room they have, so the new stripe is
// placed without any new page.
func TestPlacementTopsUpCarriedPages(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	g1 := segGeneration(genID(1), manifest.ID{}, segSpec{"db", 1, genID(1), 1, 4, 500})
	g2 := segGeneration(genID(2), genID(1), segSpec{"db", 2, genID(2), 2, 4, 500})
	budget := 4 * armoredSize(500)
	p1 := childPlacer(st, g1, budget, 1, true, genTime)
	for i := range 4 {
		mustAssign(t, p1, fmt.Sprintf("/p%d", i), true)
	}
	p2 := childPlacer(st, g2, budget, 1, true, genTime.Add(time.Hour))
	if _, err := p2.carryOver(context.Background(), g1); err != nil {
		t.Fatal(err)
	}
	covered := map[manifest.BlockRef]bool{}
	for i := range 4 {
		for _, r := range refsOf(g2, mustAssign(t, p2, fmt.Sprintf("/p%d", i), true))["db"] {
			covered[r] = true
		}
	}
	if len(covered) != 8 {
		t.Fatalf("%d of the 8 blocks on the 4 pages served again, want all", len(covered))
	}
}

// failingStores is storage whose Stores of keys containing part fail
// once ok of them succeeded, until healed.
type failingStores struct {
	*memStorage
	part   string
	ok     int
	healed bool
}

func (s *failingStores) Store(ctx context.Context, key string, v []byte) error {
	if !s.healed && strings.Contains(key, s.part) {
		if s.ok == 0 {
			return fs.ErrPermission
		}
		s.ok--
	}
	return s.memStorage.Store(ctx, key, v)
}

// checkCounts fails unless p's stored state counts exactly the records
// stored, verified and unverified apart.
func checkCounts(t *testing.T, p *placer) {
	t.Helper()
	ctx := context.Background()
	st, err := p.loadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := p.st.List(ctx, p.prefix+"pages", false)
	if err != nil {
		t.Fatal(err)
	}
	want := p.newState()
	for _, k := range keys {
		rec, err := p.readRecord(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.resolve(rec)
		if err != nil {
			t.Fatal(err)
		}
		want.count(a, +1)
	}
	if st.Records != want.Records || st.UnverifiedRecords != want.UnverifiedRecords || !slices.Equal(st.Counts, want.Counts) || !slices.Equal(st.UnverifiedCounts, want.UnverifiedCounts) {
		t.Fatalf("the state counts %d records (%d unverified), blocks %v/%v; the %d records stored are %d (%d unverified), blocks %v/%v",
			st.Records, st.UnverifiedRecords, st.Counts, st.UnverifiedCounts, len(keys), want.Records, want.UnverifiedRecords, want.Counts, want.UnverifiedCounts)
	}
}

// TestPlacementCountsAfterInterruptedCarryOver: storage failing half way
// through a carry-over leaves records carried but not counted (the state
// is stored last); served afterwards, each is counted once, so the state
// counts exactly the records stored. Before, such a record was taken off
// counts that never held it: pages lost their coverage, unverified counts
// went below zero.
func TestPlacementCountsAfterInterruptedCarryOver(t *testing.T) {
	st := &failingStores{memStorage: newMemStorage(), part: "/placement/" + genID(2).String() + "/pages/", ok: 3}
	app := segSpec{"app", 1, genID(1), 2, 8, 1000}
	g1, g2 := segGeneration(genID(1), manifest.ID{}, app), segGeneration(genID(2), genID(1), app)
	budget := 2 * armoredSize(1000)
	p1 := childPlacer(st, g1, budget, 3, false, genTime)
	var keys []string
	for i := range 8 {
		key := fmt.Sprintf("/p%d", i)
		mustPlace(t, p1, placeRequest{key: key, create: true, verified: i%2 == 0, room: roomy})
		keys = append(keys, key)
	}
	p2 := childPlacer(st, g2, budget, 3, false, genTime.Add(time.Hour))
	if _, err := p2.carryOver(context.Background(), g1); err == nil {
		t.Fatal("the carry-over did not fail with storage failing")
	}
	st.healed = true
	for _, key := range keys {
		mustAssign(t, p2, key, true)
	}
	checkCounts(t, p2)
}

// TestCarryOverCopiesLinkedPagesPastEndlessURLs: a visitor's endless
// URLs (pages nothing links to, unverified records up to their bound)
// neither cut the carry-over of the site's linked pages short nor are
// copied at the switch: they are carried over if served again. Before,
// the copy stopped at the bound of unverified records, wherever it was
// in the site's pages.
func TestCarryOverCopiesLinkedPagesPastEndlessURLs(t *testing.T) {
	st := newMemStorage()
	app := segSpec{"app", 1, genID(1), 4, 8, 1000}
	g1, g2 := segGeneration(genID(1), manifest.ID{}, app), segGeneration(genID(2), genID(1), app)
	budget := 2 * armoredSize(1000)
	p1 := childPlacer(st, g1, budget, 3, false, genTime)
	for i := range 40 {
		mustPlace(t, p1, placeRequest{key: fmt.Sprintf("/junk%d", i), create: true, room: roomy})
	}
	for i := range 10 {
		mustAssign(t, p1, fmt.Sprintf("/post%d", i), true)
	}
	p2 := childPlacer(st, g2, budget, 3, false, genTime.Add(time.Hour))
	p2.maxUnverified = 5
	n, err := p2.carryOver(context.Background(), g1)
	if err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Fatalf("%d records carried over, want the 10 linked pages'", n)
	}
	junk := mustPlace(t, p2, placeRequest{key: "/junk0", create: true, room: roomy})
	if was := mustPlace(t, p1, placeRequest{key: "/junk0", room: roomy}); !slices.Equal(refsOf(g1, was)["app"], refsOf(g2, junk)["app"]) {
		t.Fatalf("an unlinked page served again carries %v, carried %v", refsOf(g2, junk), refsOf(g1, was))
	}
	checkCounts(t, p2)
}

// TestCarriedPageChangesLastModifiedWhenRidingEnds: a page carrying the
// previous generation's blocks of a segment it changed, riding along,
// loses them at the next switch although its own blocks are all carried
// over: its Last-Modified moves past the time its riding bytes were
// served, so a client's copy from before is not answered 304. Before,
// the page kept the since of its record and a conditional request by
// date validated the stale copy.
func TestCarriedPageChangesLastModifiedWhenRidingEnds(t *testing.T) {
	st := newMemStorage()
	app, db, zz := segSpec{"app", 1, genID(1), 1, 8, 1000}, segSpec{"db", 1, genID(1), 1, 8, 1000}, segSpec{"zz", 1, genID(1), 1, 2, 1000}
	budget := 3 * armoredSize(1000)
	now := genTime
	h := &Handler{ctx: context.Background(), PageBudget: 6 * armoredSize(1000), Overlap: caddy.Duration(14 * 24 * time.Hour), now: func() time.Time { return now }}
	h.storage, h.logger = st, zap.NewNop()
	g1 := segGeneration(genID(1), manifest.ID{}, app, db, zz)
	g1.placer = childPlacer(st, g1, budget, 1, true, genTime)
	for _, key := range []string{"/y0", "/y1", "/x"} { // zz has its carriers before /x: /x gets app and db
		mustAssign(t, g1.placer, key, true)
	}
	if refs := refsOf(g1, mustAssign(t, g1.placer, "/x", true)); len(refs["db"]) == 0 || len(refs["zz"]) != 0 {
		t.Fatalf("/x carries %v: want db blocks and no zz block", refs)
	}
	switchTo := func(id byte, parent *generation, segs ...segSpec) *generation {
		now = now.Add(time.Hour)
		g := segGeneration(genID(id), genID(id-1), segs...)
		g.time = now
		g.placer = childPlacer(st, g, budget, 1, true, now)
		g.placer.now = h.now
		h.prev.Store(&riding{g: parent})
		h.startCarry(g, parent)
		h.copyPlacement(h.ctx, g, parent)
		now = now.Add(time.Minute)
		return g
	}
	db2 := segSpec{"db", 2, genID(2), 1, 8, 1000}
	g2 := switchTo(2, g1, app, db2, zz)
	under2, err := h.layoutFor(g2, "/x", true, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if under2.ride == nil {
		t.Fatal("/x carries no block of the previous generation riding along: nothing to test")
	}
	fetched := now
	g3 := switchTo(3, g2, app, db2, segSpec{"zz", 3, genID(3), 1, 2, 1000})
	under3, err := h.layoutFor(g3, "/x", true, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if under3.etag([32]byte{}, "") != under2.etag([32]byte{}, "") && !under3.since.After(fetched) {
		t.Fatalf("/x changed (riding blocks gone) but its blocks last changed at %v, before a copy fetched at %v", under3.since, fetched)
	}
}

// TestCopyFinishesPastDamagedParentRecords: parent records that cannot
// be read (not JSON, too large, stored under another path's name) are
// skipped, however many: the copy of the good ones completes and the
// state stops copying, so it can become full. Before, more than 100 of
// them failed every attempt at the same place, storing no progress: the
// state stayed copying (never full, its pending coverage never cleared)
// and the good records were copied again, uncounted, on every attempt.
func TestCopyFinishesPastDamagedParentRecords(t *testing.T) {
	st := newMemStorage()
	app := segSpec{"app", 1, genID(1), 4, 8, 1000}
	g1, g2 := segGeneration(genID(1), manifest.ID{}, app), segGeneration(genID(2), genID(1), app)
	budget := 2 * armoredSize(1000)
	p1 := childPlacer(st, g1, budget, 3, false, genTime)
	for i := range 20 {
		mustAssign(t, p1, fmt.Sprintf("/p%d", i), true)
	}
	damage := [][]byte{[]byte("{"), make([]byte, maxRecordBytes+1), []byte(`{"path":"/elsewhere","blocks":[]}`)}
	for i := range 150 {
		st.m[p1.prefix+"pages/"+recordHash(fmt.Sprintf("/bad%d", i))] = damage[i%len(damage)]
	}
	p2 := childPlacer(st, g2, budget, 3, false, genTime.Add(time.Hour))
	n, err := p2.carryOver(context.Background(), g1)
	if err != nil || n != 20 {
		t.Fatalf("copied %d records, %v; want the 20 readable ones", n, err)
	}
	state, err := p2.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if state.Copying || !state.Carried || state.Pending != nil {
		t.Fatalf("after the copy: copying %v, carried %v, pending %v; want done", state.Copying, state.Carried, state.Pending)
	}
	checkCounts(t, p2)
}

// checkCoverage fails unless p's coverage (counts and pending) is what
// its records and its parent's give while the parent's records are being
// copied: the blocks of the records counted here, and those of the
// parent's verified records not counted here yet (no record here, or
// one carried over but not counted).
func checkCoverage(t *testing.T, p *placer, what string) {
	t.Helper()
	ctx := context.Background()
	st, err := p.loadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(st.Counts)
	keys, err := p.st.List(ctx, p.parent+"pages", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		rec, err := p.readRecord(ctx, k)
		if err != nil || rec.Unverified || p.g.pages[rec.Path] != nil || !st.Copying {
			continue
		}
		if own, err := p.readRecord(ctx, p.recordKey(rec.Path)); err == nil && (!own.Carried || st.countsCarried(rec.Path)) {
			continue
		}
		idx, _ := p.places(rec)
		for _, i := range idx {
			want[i]++
		}
	}
	if got := st.coverage(); !slices.Equal(got, want) {
		t.Fatalf("%s: coverage %v, want %v", what, got, want)
	}
}

// cancelStores is storage that cancels a context once n Stores of keys
// containing part have been made.
type cancelStores struct {
	*memStorage
	part   string
	n      int
	cancel context.CancelFunc
}

func (s *cancelStores) Store(ctx context.Context, key string, v []byte) error {
	err := s.memStorage.Store(ctx, key, v)
	if strings.Contains(key, s.part) {
		if s.n--; s.n == 0 {
			s.cancel()
		}
	}
	return err
}

// TestPageServedAfterInterruptedCopyLeavesPending: a copy cancelled in
// the middle of a turn (Caddy reloading its config) leaves the records
// it stored in that turn carried but not counted, its progress not
// stored; a page among them served next is counted once, its parent's
// record no longer pending. Before, it was counted and still pending:
// its blocks had one carrier too many until the copy completed.
func TestPageServedAfterInterruptedCopyLeavesPending(t *testing.T) {
	mem := newMemStorage()
	app := segSpec{"app", 1, genID(1), 4, 8, 1000}
	g1, g2 := segGeneration(genID(1), manifest.ID{}, app), segGeneration(genID(2), genID(1), app)
	budget := 2 * armoredSize(1000)
	p1 := childPlacer(mem, g1, budget, 3, false, genTime)
	for i := range 20 {
		mustAssign(t, p1, fmt.Sprintf("/p%d", i), true)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &cancelStores{memStorage: mem, part: "/placement/" + g2.id + "/pages/", n: 5, cancel: cancel}
	p2 := childPlacer(st, g2, budget, 3, false, genTime.Add(time.Hour))
	if err := p2.startCarry(ctx, g1); err != nil {
		t.Fatal(err)
	}
	if _, err := p2.copyParent(ctx); err == nil {
		t.Fatal("the copy went on after its context was cancelled")
	}
	checkCoverage(t, p2, "after the cancelled copy")
	for i := range 20 {
		key := fmt.Sprintf("/p%d", i)
		mustAssign(t, p2, key, true)
		checkCoverage(t, p2, "after serving "+key)
	}
	if _, err := p2.copyParent(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, p2)
}

// stateStores is storage that counts the Stores of placement states.
type stateStores struct {
	*memStorage
	mu sync.Mutex
	n  int
}

func (s *stateStores) Store(ctx context.Context, key string, v []byte) error {
	if strings.HasSuffix(key, "/state") {
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
	}
	return s.memStorage.Store(ctx, key, v)
}

// TestCopiesOfOnePlacementTakeTurnsWhole: two copies of the same
// placement at once in one instance (a switch to the next generation
// while the copy for this one runs: the new copy finishes this one's
// first) copy in whole turns, one after the other. Before, each gave way
// to the other waiting for the placement after every record, as to a
// request: a turn, with a state read and write, per record copied.
func TestCopiesOfOnePlacementTakeTurnsWhole(t *testing.T) {
	st := &stateStores{memStorage: newMemStorage()}
	app := segSpec{"app", 1, genID(1), 8, 40, 1000}
	g1 := parentPlacement(t, st, app, 400)
	g2 := segGeneration(genID(2), genID(1), app)
	p2 := childPlacer(st, g2, 2*armoredSize(1000), 3, false, genTime.Add(time.Hour))
	if err := p2.startCarry(context.Background(), g1); err != nil {
		t.Fatal(err)
	}
	st.n = 0
	var wg sync.WaitGroup
	copied := make([]int, 2)
	for i := range copied {
		wg.Go(func() {
			n, err := p2.copyParent(context.Background())
			if err != nil {
				t.Error(err)
			}
			copied[i] = n
		})
	}
	wg.Wait()
	if copied[0]+copied[1] != 400 || st.n > 4 {
		t.Fatalf("the two copies copied %v records in %d turns; want 400 in a few", copied, st.n)
	}
	checkCounts(t, p2)
}

// TestSwitchKeepsGrandparentPlacementWhileParentCopyUnfinished: a switch
// whose copy does not complete (here: the handler's context cancelled,
// as Caddy does before Cleanup) deletes no placement: the generation
// before the parent, whose records the parent's unfinished copy still
// needs, keeps its. Before, the pruning that follows the copy ran
// anyway and deleted it, and the parent's copy completed without the
// records not yet copied.
func TestSwitchKeepsGrandparentPlacementWhileParentCopyUnfinished(t *testing.T) {
	st := newMemStorage()
	app := segSpec{"app", 1, genID(1), 4, 8, 1000}
	budget := 2 * armoredSize(1000)
	ctx, cancel := context.WithCancel(context.Background())
	h := &Handler{ctx: ctx, Name: "t", PageBudget: budget, Copies: 3, Fill: true, Overlap: -1, now: func() time.Time { return genTime.Add(time.Hour) }}
	h.storage, h.logger, h.metrics = st, zap.NewNop(), newMetrics(nil, newCounters())
	h.src = &bundleStore{st: newMemStorage()} // holds none of them: all may be pruned
	g1 := segGeneration(genID(1), manifest.ID{}, app)
	h.attachPlacer(g1)
	for i := range 10 {
		mustAssign(t, g1.placer, fmt.Sprintf("/p%d", i), true)
	}
	g2 := segGeneration(genID(2), genID(1), app)
	h.attachPlacer(g2)
	h.startCarry(g2, g1) // its copy not run yet
	g3 := segGeneration(genID(3), genID(2), app)
	cancel()
	h.use(g3, g2)
	h.background.Wait()
	if !st.Exists(context.Background(), g1.placer.prefix+"state") {
		t.Fatal("the placement the parent's unfinished copy reads from was deleted")
	}
}
