package codec

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// InFlightPerWorker bounds the items ScanOrdered holds per worker:
// received from its input and not yet handed over (a page being scanned,
// a scanned page waiting for an earlier one). Pages can be tens of MiB.
const InFlightPerWorker = 2

// ScanOrdered calls scan on each item received from in, on workers
// goroutines, and out with each item and its result one call at a time,
// in the order the items were received: the results (and so whatever
// out adds to an assembler) do not depend on the number of workers or
// on timing. At most workers × InFlightPerWorker items are held at once
// (received and not yet through out); ScanOrdered waits to receive more.
// workers defaults (0) to GOMAXPROCS; a negative value is an error.
//
// It returns nil once in is closed and every item went through out, or
// the first error of out, or ctx's error; then it stops receiving from
// in (a producer should watch a context the caller cancels) and calls
// neither scan nor out again.
func ScanOrdered[T, R any](ctx context.Context, workers int, in <-chan T, scan func(T) R, out func(T, R) error) error {
	if workers < 0 {
		return fmt.Errorf("scanning pages: %d workers", workers)
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &ordered[T, R]{
		order:  make(chan *slot[T, R], workers*InFlightPerWorker),
		work:   make(chan *slot[T, R]),
		tokens: make(chan struct{}, workers*InFlightPerWorker),
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.feed(ctx, in) })
	for range workers {
		wg.Go(func() {
			for s := range p.work {
				s.res = scan(s.item)
				close(s.done)
			}
		})
	}
	err := p.drain(ctx, out)
	cancel()
	wg.Wait()
	return err
}

// slot is one item on its way through ScanOrdered.
type slot[T, R any] struct {
	item T
	res  R
	done chan struct{} // closed once res is set
}

// ordered is the state of one ScanOrdered call.
type ordered[T, R any] struct {
	order  chan *slot[T, R] // every slot, in input order, for drain
	work   chan *slot[T, R] // slots to scan, for the workers
	tokens chan struct{}    // one per item in flight
}

// feed receives items while there is room, queueing each for drain and
// for a worker. It closes both queues when in is closed or ctx is done.
func (p *ordered[T, R]) feed(ctx context.Context, in <-chan T) {
	defer close(p.order)
	defer close(p.work)
	for {
		select {
		case p.tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
		var s *slot[T, R]
		select {
		case item, ok := <-in:
			if !ok {
				return
			}
			s = &slot[T, R]{item: item, done: make(chan struct{})}
		case <-ctx.Done():
			return
		}
		p.order <- s // never blocks: it holds at most one slot per token
		select {
		case p.work <- s:
		case <-ctx.Done():
			return
		}
	}
}

// drain hands the scanned items to out in input order.
func (p *ordered[T, R]) drain(ctx context.Context, out func(T, R) error) error {
	for s := range p.order {
		select {
		case <-s.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := out(s.item, s.res); err != nil {
			return err
		}
		<-p.tokens
	}
	return ctx.Err()
}

// Page is a page to add: its bytes and where it was found.
type Page struct {
	Bytes []byte
	From  Origin
}

// AddPages scans the pages received from in on workers goroutines (see
// ScanOrdered for the defaults, the memory bound and when it returns)
// and adds them in the order received, calling each with every page and
// its report, as a loop calling AddPage then each would, only faster.
// each may be nil.
func (a *Assembler) AddPages(ctx context.Context, workers int, in <-chan Page, each func(Page, PageReport) error) error {
	return ScanOrdered(ctx, workers, in,
		func(p Page) *Scanned { return a.Scan(p.Bytes, p.From) },
		func(p Page, s *Scanned) error {
			rep := a.AddScanned(s)
			if each != nil {
				return each(p, rep)
			}
			return nil
		})
}
