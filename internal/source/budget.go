package source

import (
	"context"
	"sync"
)

// Budget bounds the bytes of captures held between a goroutine that
// reads them and the ones that take them: the reader acquires a
// capture's size before handing it on, whoever is done with it releases
// it. One goroutine acquires; any may release.
type Budget struct {
	limit int64
	mu    sync.Mutex
	used  int64
	freed chan struct{} // signalled on release
}

// NewBudget returns a Budget of limit bytes.
func NewBudget(limit int64) *Budget {
	return &Budget{limit: limit, freed: make(chan struct{}, 1)}
}

// Acquire waits until n more bytes fit, or nothing is held (a capture
// larger than the limit goes alone), and takes them; or returns ctx's
// error.
func (b *Budget) Acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		b.mu.Unlock()
		select {
		case <-b.freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Release gives n bytes back.
func (b *Budget) Release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	select {
	case b.freed <- struct{}{}:
	default:
	}
}
