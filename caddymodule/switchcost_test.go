package caddymodule

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"go.uber.org/zap"
)

// parentPlacement stores, on file storage under dir, the placement of a
// generation whose n verified pages /pI each have a record, and returns
// the generation.
func parentPlacement(b testing.TB, st certmagic.Storage, app segSpec, n int) *generation {
	b.Helper()
	ctx := context.Background()
	g := segGeneration(genID(1), manifest.ID{}, app)
	p := childPlacer(st, g, 2*armoredSize(app.size), 3, false, genTime)
	state := p.newState()
	for i := range n {
		a := p.leastCovered(state, false, roomy)
		key := fmt.Sprintf("/p%d", i)
		if err := p.storeRecord(ctx, key, a); err != nil {
			b.Fatal(err)
		}
		state.count(a, +1)
	}
	if err := p.storeState(ctx, state); err != nil {
		b.Fatal(err)
	}
	g.placer = p
	return g
}

// BenchmarkSwitchWithParentRecords times what a switch to a new
// generation costs the request that makes it, on file storage, with N
// page records in the parent's placement: the start of the carry-over
// and the state read that Handler.use does before the first page is
// served. It also reports the first serve of a page the parent placed
// (its record carried over then) as ns/first-serve, and the copy of the
// parent's records that follows in the background as
// ns/background-copy.
func BenchmarkSwitchWithParentRecords(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			st := &certmagic.FileStorage{Path: b.TempDir()}
			app := segSpec{"app", 1, genID(1), 8, 40, 1000}
			g1 := parentPlacement(b, st, app, n)
			h := &Handler{ctx: context.Background(), Overlap: -1, PageBudget: 2 * armoredSize(app.size), Copies: 3, Fill: true, now: func() time.Time { return genTime.Add(time.Hour) }}
			h.storage, h.logger, h.Name = st, zap.NewNop(), "t"
			var serve, copying time.Duration
			b.ResetTimer()
			for i := range b.N {
				g := segGeneration(genID(byte(2+i)), genID(1), app)
				h.attachPlacer(g)
				h.startCarry(g, g1)
				if err := g.placer.refresh(h.ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				start := time.Now()
				mustAssign(b, g.placer, "/p7", true)
				serve += time.Since(start)
				start = time.Now()
				h.copyPlacement(h.ctx, g, g1)
				copying += time.Since(start)
				b.StartTimer()
			}
			b.ReportMetric(float64(serve.Nanoseconds())/float64(b.N), "ns/first-serve")
			b.ReportMetric(float64(copying.Nanoseconds())/float64(b.N), "ns/background-copy")
		})
	}
}
