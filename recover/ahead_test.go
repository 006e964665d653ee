package recover

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/codec"
)

// TestAheadBoundedByBytes: with many workers and a slow taker, the
// captures read ahead and not yet taken hold at most aheadBytes (or one
// capture larger than that), whatever their count, and all arrive in
// order.
func TestAheadBoundedByBytes(t *testing.T) {
	defer func(n int) { scanWorkers = n }(scanWorkers)
	scanWorkers = 16
	for _, size := range []int{30 << 20, 5 << 20, 100 << 20} {
		page := make([]byte, size) // sent again and again: the bound is on what the budget counts
		var fed, taken, most atomic.Int64
		s := &session{}
		const n = 20
		next := 0
		err, feedErr := s.ahead(context.Background(),
			func(ctx context.Context, send func(*readAhead) error) error {
				for i := range n {
					if err := send(&readAhead{q: queued{}, page: page[:size-i]}); err != nil {
						return err
					}
					if held := fed.Add(int64(size-i)) - taken.Load(); held > most.Load() {
						most.Store(held)
					}
				}
				return nil
			},
			func(r *readAhead, sc *codec.Scanned) error {
				if len(r.page) != size-next || sc != nil {
					t.Errorf("capture %d: %d bytes, scanned %v", next, len(r.page), sc != nil)
				}
				next++
				time.Sleep(time.Millisecond)
				taken.Add(int64(len(r.page)))
				return nil
			})
		if err != nil || feedErr != nil || next != n {
			t.Fatalf("%d of %d taken: %v, %v", next, n, err, feedErr)
		}
		if limit := max(int64(aheadBytes), int64(size)); most.Load() > limit {
			t.Errorf("captures of %d MiB: %d MiB held ahead, want at most %d MiB", size>>20, most.Load()>>20, limit>>20)
		}
	}
}
