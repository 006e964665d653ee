package caddymodule

import (
	"context"
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

func newTestPlacer(st certmagic.Storage, g *generation, budget int64, copies int) *placer {
	return newPlacer(st, "lazarus/t/placement/"+g.id+"/", g, budget, copies, func() time.Time { return genTime.Add(time.Hour) })
}

func mustAssign(t *testing.T, p *placer, key string, create bool) *assignment {
	t.Helper()
	a, err := p.assign(context.Background(), key, create)
	if err != nil {
		t.Fatal(err)
	}
	return a
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
				x, err := p.assign(context.Background(), fmt.Sprintf("/x%d", i), true)
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
		if _, err := p.assign(context.Background(), "/new"+bad, true); err == nil {
			t.Fatalf("state %q accepted", bad)
		}
	}
}

// BenchmarkAssign_Known measures the hot path: a page with a record.
func BenchmarkAssign_Known(b *testing.B) {
	g := testGeneration(20, 10, 1000)
	p := newTestPlacer(&certmagic.FileStorage{Path: b.TempDir()}, g, 8*armoredSize(1000), 3)
	if _, err := p.assign(context.Background(), "/a", true); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.assign(context.Background(), "/a", true)
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
		if _, err := p.assign(context.Background(), fmt.Sprintf("/n%d", i), true); err != nil {
			b.Fatal(err)
		}
	}
}
