package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// testGeneration is a generation of stripes stripes of k+m blocks of size
// bytes each, with no plan.
func testGeneration(stripes, width int, size int64) *generation {
	g := &generation{id: "0123456789abcdef0123456789abcdef", time: genTime, manifest: make([]byte, 3000),
		manifestOn: map[string]bool{"/": true}, pages: map[string][]int{}}
	for s := range stripes {
		for i := range width {
			g.blocks = append(g.blocks, blockFile{ref: manifest.BlockRef{Segment: "app", Stripe: uint32(s), Shard: uint16(i)}, size: size})
		}
	}
	slices.SortFunc(g.blocks, func(a, b blockFile) int { return compareRefs(a.ref, b.ref) })
	return g
}

// newTestPlacer makes a placer that fills pages (Handler.Fill), the
// layout most tests here were written for; newLightPlacer the default.
func newTestPlacer(st certmagic.Storage, g *generation, budget int64, copies int) *placer {
	return newPlacer(st, "lazarus/t/placement/"+g.id+"/", g, budget, copies, false, func() time.Time { return genTime.Add(time.Hour) })
}

func newLightPlacer(st certmagic.Storage, g *generation, budget int64, copies int) *placer {
	return newPlacer(st, "lazarus/t/placement/"+g.id+"/", g, budget, copies, true, func() time.Time { return genTime.Add(time.Hour) })
}

// roomy is a page's room for comments when it does not matter.
const roomy = 1 << 40

// mustAssign places the verified page key with room to spare.
func mustAssign(t testing.TB, p *placer, key string, create bool) *assignment {
	t.Helper()
	return mustPlace(t, p, placeRequest{key: key, create: create, verified: true, room: roomy})
}

// mustPlace places the page q asks for.
func mustPlace(t testing.TB, p *placer, q placeRequest) *assignment {
	t.Helper()
	a, err := p.assign(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// place is q for a new page, verified or not, with room to spare.
func place(key string, verified bool) placeRequest {
	return placeRequest{key: key, create: true, verified: verified, room: roomy}
}

// records counts the stored page records.
func records(t *testing.T, dir string, g *generation) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "lazarus/t/placement", g.id, "pages"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(entries)
}

// TestLeastCovered: pages get the least-covered blocks, so coverage stays
// even; a page holds blocks of different stripes; the budget holds.
func TestLeastCovered(t *testing.T) {
	g := testGeneration(8, 6, 1000) // 48 blocks
	budget := 4 * armoredSize(1000)
	p := newTestPlacer(&certmagic.FileStorage{Path: t.TempDir()}, g, budget, 3)
	counts := make([]int, len(g.blocks))
	for i := range 30 {
		a := mustAssign(t, p, fmt.Sprintf("/p%d", i), true)
		if len(a.blocks) != 4 {
			t.Fatalf("page %d: %d blocks, want the 4 the budget allows", i, len(a.blocks))
		}
		stripes := map[uint32]bool{}
		for _, b := range a.blocks {
			counts[b]++
			stripes[g.blocks[b].ref.Stripe] = true
		}
		if len(stripes) != len(a.blocks) {
			t.Fatalf("page %d holds two blocks of one stripe: %v", i, a.blocks)
		}
	}
	// Expected: 120 block placements over 48 blocks: every block on 2 or 3 pages.
	if lo, hi := slices.Min(counts), slices.Max(counts); hi-lo > 1 {
		t.Fatalf("uneven coverage: min %d max %d", lo, hi)
	}
	if again := mustAssign(t, p, "/p7", true); !slices.Equal(again.blocks, mustAssign(t, p, "/p7", true).blocks) {
		t.Fatal("assignment changed")
	}
	want := int((budget - int64(len(g.manifest)) - 1) / armoredSize(1000))
	if m := mustAssign(t, p, "/", true); !m.manifest || len(m.blocks) != want {
		t.Fatalf("root: manifest %v, %d blocks, want %d beside the manifest", m.manifest, len(m.blocks), want)
	}
}

// TestPlacementSharedAndBounded: a second instance on the same storage sees
// the first one's records and continues its coverage; once every block has
// Copies carriers, new paths make no records and get the same table entry
// on both instances.
func TestPlacementSharedAndBounded(t *testing.T) {
	dir := t.TempDir()
	st := &certmagic.FileStorage{Path: dir}
	g := testGeneration(4, 5, 1000) // 20 blocks
	budget := 2 * armoredSize(1000)
	a, b := newTestPlacer(st, g, budget, 2), newTestPlacer(st, g, budget, 2)
	seen := map[string][]int{}
	for i := range 40 {
		p, q := a, b
		if i%3 == 0 {
			p, q = b, a
		}
		key := fmt.Sprintf("/post/%d", i)
		first := mustAssign(t, p, key, true)
		if other := mustAssign(t, q, key, true); !slices.Equal(first.blocks, other.blocks) || !first.since.Equal(other.since) {
			t.Fatalf("%s: instances disagree: %v vs %v", key, first.blocks, other.blocks)
		}
		seen[key] = first.blocks
	}
	// Expected: 20 blocks × 2 copies / 2 per page = 20 records, then the table.
	if n := records(t, dir, g); n != 20 {
		t.Fatalf("%d records, want 20", n)
	}
	for i := range 2000 {
		key := fmt.Sprintf("/calendar/%d", i)
		x, y := mustAssign(t, a, key, true), mustAssign(t, b, key, true)
		if !slices.Equal(x.blocks, y.blocks) || len(x.blocks) != 2 {
			t.Fatalf("%s: table entries %v and %v", key, x.blocks, y.blocks)
		}
	}
	if n := records(t, dir, g); n != 20 {
		t.Fatalf("endless URLs grew the records to %d", n)
	}
	fresh := newTestPlacer(st, g, budget, 2) // a third instance, started later
	for key, blocks := range seen {
		if got := mustAssign(t, fresh, key, true); !slices.Equal(got.blocks, blocks) {
			t.Fatalf("%s: a new instance gives %v, want %v", key, got.blocks, blocks)
		}
	}
}

// TestPlacementConcurrent: two instances assigning the same new paths at
// once agree on every one, and the stored coverage counts every record.
func TestPlacementConcurrent(t *testing.T) {
	dir := t.TempDir()
	st := &certmagic.FileStorage{Path: dir}
	g := testGeneration(10, 10, 500)
	a, b := newTestPlacer(st, g, armoredSize(500), 50), newTestPlacer(st, g, armoredSize(500), 50)
	const n = 60
	got := [2][n][]int{}
	var wg sync.WaitGroup
	for w, p := range []*placer{a, b} {
		wg.Go(func() {
			for i := range n {
				x, err := p.assign(context.Background(), place(fmt.Sprintf("/x%d", i), true))
				if err != nil {
					t.Error(err)
					return
				}
				got[w][i] = x.blocks
			}
		})
	}
	wg.Wait()
	for i := range n {
		if !slices.Equal(got[0][i], got[1][i]) {
			t.Fatalf("/x%d: %v vs %v", i, got[0][i], got[1][i])
		}
	}
	st0, err := a.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, c := range st0.Counts {
		sum += c
	}
	if st0.Records != n || sum != n || records(t, dir, g) != n {
		t.Fatalf("state: %d records, %d placements, %d stored; want %d", st0.Records, sum, records(t, dir, g), n)
	}
}

// TestManifestPages: the pages the root links to carry the manifest if they
// are first served after the root; pages assigned before keep what they
// had (their bytes never change silently).
func TestManifestPages(t *testing.T) {
	g := testGeneration(2, 4, 1000)
	p := newTestPlacer(&certmagic.FileStorage{Path: t.TempDir()}, g, 3*armoredSize(1000)+4000, 3)
	early := mustAssign(t, p, "/early/", true)
	if err := p.noteRoot(context.Background(), []string{"/early/", "/about/", "/"}); err != nil {
		t.Fatal(err)
	}
	if again := mustAssign(t, p, "/early/", true); again.manifest || !slices.Equal(again.blocks, early.blocks) {
		t.Fatal("a page assigned before the root changed")
	}
	if about := mustAssign(t, p, "/about/", true); !about.manifest {
		t.Fatal("a page linked from the root has no manifest")
	}
	if other := mustAssign(t, p, "/other/", true); other.manifest {
		t.Fatal("an unlinked page carries the manifest")
	}
	if prev := mustAssign(t, p, "/never-seen/", false); prev.manifest || len(prev.blocks) == 0 {
		t.Fatal("create=false: want a table entry")
	}
}

// TestPlacementBadState: a damaged shared state is an error (the handler
// then serves the page without blocks), not a panic or a reset.
func TestPlacementBadState(t *testing.T) {
	dir := t.TempDir()
	g := testGeneration(1, 4, 100)
	p := newTestPlacer(&certmagic.FileStorage{Path: dir}, g, 1<<20, 3)
	for _, bad := range []string{"{", `{"counts": [1, 2]}`} {
		writeFile(t, filepath.Join(dir, "lazarus/t/placement", g.id, "state"), []byte(bad))
		if _, err := p.assign(context.Background(), place("/new"+bad, true)); err == nil {
			t.Fatalf("state %q accepted", bad)
		}
	}
}

// BenchmarkAssign_Known measures the hot path: a page with a record.
func BenchmarkAssign_Known(b *testing.B) {
	g := testGeneration(20, 10, 1000)
	p := newTestPlacer(&certmagic.FileStorage{Path: b.TempDir()}, g, 8*armoredSize(1000), 3)
	if _, err := p.assign(context.Background(), place("/a", true)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.assign(context.Background(), place("/a", true))
	}
}

// BenchmarkAssign_New measures making a record (storage lock and writes).
func BenchmarkAssign_New(b *testing.B) {
	g := testGeneration(20, 10, 1000)
	p := newTestPlacer(&certmagic.FileStorage{Path: b.TempDir()}, g, 8*armoredSize(1000), 1<<20)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := p.assign(context.Background(), place(fmt.Sprintf("/n%d", i), true)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTableCoversEveryBlock: the fixed table has enough entries for every
// block to be in Copies of them, whatever the generation's size (it had
// 256, which hold only 256 × blocks-per-page blocks: 768 with defaults),
// and every instance computes the same table.
func TestTableCoversEveryBlock(t *testing.T) {
	for _, tt := range []struct {
		stripes, width int
		size, budget   int64
		copies         int
	}{
		{16, 250, 48 << 10, DefaultPageBudget, 3}, // 4,000 blocks of 48 KiB, 3 per page
		{2, 4, 1000, 1 << 20, 3},                  // a generation smaller than one page's budget
		{40, 250, 48 << 10, 100 << 10, 2},         // 10,000 blocks, 2 per page
		{3, 7, 5000, 1000, 1},                     // a budget under one block: one per page
	} {
		g := testGeneration(tt.stripes, tt.width, tt.size)
		p := newTestPlacer(newMemStorage(), g, tt.budget, tt.copies)
		in := make([]int, len(g.blocks))
		for t := range p.tableLen {
			at := t * len(p.order) / p.tableLen
			a := p.tableEntry(at)
			for _, i := range a.blocks {
				in[i]++
			}
		}
		// Expected: each block in at least copies table entries.
		if lo := slices.Min(in); lo < tt.copies {
			t.Errorf("%d blocks, budget %d, copies %d: %d table entries; a block is in %d of them", len(g.blocks), tt.budget, tt.copies, p.tableLen, lo)
		}
		if q := newTestPlacer(newMemStorage(), g, tt.budget, tt.copies); !slices.Equal(q.table("/x").blocks, p.table("/x").blocks) {
			t.Error("two instances disagree on a table entry")
		}
	}
}

// realCoverage places the verified pages /post/0 … /post/n-1 and returns
// how many of them carry each block.
func realCoverage(t *testing.T, p *placer, n int) []int {
	t.Helper()
	counts := make([]int, len(p.g.blocks))
	for i := range n {
		for _, b := range mustPlace(t, p, place(fmt.Sprintf("/post/%d", i), true)).blocks {
			counts[b]++
		}
	}
	return counts
}

// TestJunkPathsDoNotTakeCoverage: requests for paths nothing links to (a
// catch-all route answers any URL) get records, but not counted: the
// site's real, linked pages still get the least-covered blocks, so every
// block ends up on the same number of real pages as without the junk.
// Measured before the fix (junk counted, a 256-entry table): 3,000 real
// pages after 4,000 junk requests carried 768 of 4,000 blocks, and no
// stripe could be rebuilt from them.
func TestJunkPathsDoNotTakeCoverage(t *testing.T) {
	const stripes, width, real, junk = 8, 125, 750, 1000 // 1,000 blocks of 48 KiB, 3 per page
	g := testGeneration(stripes, width, 48<<10)
	clean := realCoverage(t, newTestPlacer(newMemStorage(), g, DefaultPageBudget, DefaultFillCopies), real)
	p := newTestPlacer(newMemStorage(), g, DefaultPageBudget, DefaultFillCopies)
	for i := range junk {
		mustPlace(t, p, place(fmt.Sprintf("/junk%d", i), false))
	}
	attacked := realCoverage(t, p, real)
	// Expected: 750 pages × 3 blocks over 1,000 blocks: every block on 2
	// or 3 real pages, junk first or not.
	t.Logf("real pages per block: without junk %d..%d, after %d junk requests %d..%d", slices.Min(clean), slices.Max(clean), junk,
		slices.Min(attacked), slices.Max(attacked))
	if lo := slices.Min(attacked); lo < slices.Min(clean) || lo < 2 {
		t.Fatalf("after junk requests a block is on %d real pages, without them %d", lo, slices.Min(clean))
	}
	st, err := p.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != real || st.UnverifiedRecords != junk || st.Full {
		t.Fatalf("state: %d verified and %d unverified records, full %v", st.Records, st.UnverifiedRecords, st.Full)
	}
}

// TestUnverifiedRecordsBounded: past maxUnverified records of unverified
// pages, such pages get table entries and make no record (storage and
// lock time stay bounded), while linked pages still get records; a page
// recorded unverified counts once a verified request for it comes, and
// keeps its blocks.
func TestUnverifiedRecordsBounded(t *testing.T) {
	dir := t.TempDir()
	g := testGeneration(4, 5, 1000)
	p := newTestPlacer(&certmagic.FileStorage{Path: dir}, g, 2*armoredSize(1000), 3)
	p.maxUnverified = 5
	first := mustPlace(t, p, place("/junk0", false))
	for i := 1; i < 20; i++ {
		mustPlace(t, p, place(fmt.Sprintf("/junk%d", i), false))
	}
	// Expected: 5 unverified records, the other 15 junk paths none.
	if n := records(t, dir, g); n != 5 {
		t.Fatalf("%d records after 20 unverified pages, want 5", n)
	}
	if a := mustPlace(t, p, place("/linked", true)); a.unverified || records(t, dir, g) != 6 {
		t.Fatalf("a verified page: unverified %v, %d records", a.unverified, records(t, dir, g))
	}
	// Expected: /junk0, now linked, keeps its blocks and counts.
	again := mustPlace(t, p, place("/junk0", true))
	st, err := p.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.blocks, first.blocks) || again.unverified || st.Records != 2 || st.UnverifiedRecords != 4 {
		t.Fatalf("verified later: blocks %v (had %v), unverified %v; state %d verified, %d unverified", again.blocks, first.blocks, again.unverified, st.Records, st.UnverifiedRecords)
	}
	if fresh := newTestPlacer(&certmagic.FileStorage{Path: dir}, g, 2*armoredSize(1000), 3); !slices.Equal(mustPlace(t, fresh, place("/junk0", false)).blocks, first.blocks) {
		t.Fatal("another instance serves other blocks")
	}
}

// TestRecordHoldsOnlyWhatFits: a new record holds only the blocks that
// fit in the page's room, so coverage counts what pages really carry
// (20 large pages were counted with 144 blocks while they carried 60,
// and the state called itself full); a page with no room gets no record.
func TestRecordHoldsOnlyWhatFits(t *testing.T) {
	g := testGeneration(8, 6, 1000)
	p := newTestPlacer(newMemStorage(), g, 4*armoredSize(1000), 3)
	a := mustPlace(t, p, placeRequest{key: "/big", create: true, verified: true, room: armoredSize(1000) + 10})
	st, err := p.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, c := range st.Counts {
		sum += c
	}
	// Expected: one block fits, one is recorded and counted.
	if len(a.blocks) != 1 || sum != 1 {
		t.Fatalf("%d blocks recorded, %d counted; want 1 and 1", len(a.blocks), sum)
	}
	if _, err := p.assign(context.Background(), placeRequest{key: "/huge", create: true, verified: true, room: 10}); !errors.Is(err, errPageTooLarge) {
		t.Fatalf("no room: %v, want errPageTooLarge", err)
	}
}

// TestVerifiedFirst: while records of unverified pages queue for the
// placement lock, a verified page waiting for it goes next.
func TestVerifiedFirst(t *testing.T) {
	l := newPrioLock()
	l.lock(false)
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	take := func(name string, urgent bool) {
		defer wg.Done()
		l.lock(urgent)
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		l.unlock()
	}
	for i := range 3 {
		wg.Add(1)
		go take(fmt.Sprint("junk", i), false)
	}
	waitFor(t, func() bool { return l.waiting() == 3 })
	wg.Add(1)
	go take("linked", true)
	waitFor(t, func() bool { return l.waiting() == 4 })
	l.unlock()
	wg.Wait()
	// Expected: the verified page goes first of the four.
	if order[0] != "linked" {
		t.Fatalf("order %v", order)
	}
}

// waitFor polls cond until it holds, for at most 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
	}
}
