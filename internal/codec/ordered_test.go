package codec

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// produce sends 0..n-1 on an unbuffered channel until ctx is done,
// counting what it handed over in sent.
func produce(ctx context.Context, n int, sent *atomic.Int64) <-chan int {
	in := make(chan int)
	go func() {
		defer close(in)
		for i := range n {
			select {
			case in <- i:
				sent.Add(1)
			case <-ctx.Done():
				return
			}
		}
	}()
	return in
}

// TestScanOrderedKeepsOrder: results reach out in input order whatever
// the workers' timing, and no more items are held than the bound.
func TestScanOrderedKeepsOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		var sent, done, most atomic.Int64
		r := rand.New(rand.NewPCG(1, uint64(workers)))
		delays := make([]time.Duration, 300)
		for i := range delays {
			delays[i] = time.Duration(r.IntN(300)) * time.Microsecond
		}
		var got []int
		err := ScanOrdered(context.Background(), workers, produce(context.Background(), len(delays), &sent),
			func(i int) int {
				if held := sent.Load() - done.Load(); held > most.Load() {
					most.Store(held)
				}
				time.Sleep(delays[i])
				return 2 * i
			},
			func(i, r int) error {
				if r != 2*i {
					t.Errorf("item %d got result %d", i, r)
				}
				got = append(got, i)
				done.Add(1)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("workers=%d: item %d handed over at position %d", workers, v, i)
			}
		}
		if len(got) != len(delays) {
			t.Fatalf("workers=%d: %d of %d items handed over", workers, len(got), len(delays))
		}
		// sent counts an item once received; one more may be counted
		// while out runs.
		if limit := int64(workers*InFlightPerWorker) + 1; most.Load() > limit {
			t.Errorf("workers=%d: %d items held at once, bound %d", workers, most.Load(), limit)
		}
	}
}

// TestScanOrderedStopsOnError: out's first error is returned, out is not
// called again, and no scan runs after ScanOrdered returned.
func TestScanOrderedStopsOnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sent, scans atomic.Int64
	stop := errors.New("stop")
	calls := 0
	err := ScanOrdered(ctx, 4, produce(ctx, 1000, &sent),
		func(i int) int { scans.Add(1); return i },
		func(i, _ int) error {
			calls++
			if i == 10 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || calls != 11 {
		t.Fatalf("got %v after %d calls, want stop after 11", err, calls)
	}
	n := scans.Load()
	time.Sleep(10 * time.Millisecond)
	if scans.Load() != n || n > 11+4*InFlightPerWorker {
		t.Fatalf("%d scans, then %d: scanning went on or ran far ahead", n, scans.Load())
	}
}

// TestScanOrderedCancelled: a cancelled context ends a run whose input
// never closes.
func TestScanOrderedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan int)
	go func() {
		in <- 1
		cancel()
	}()
	err := ScanOrdered(ctx, 2, in, func(i int) int { return i }, func(int, int) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if err := ScanOrdered(context.Background(), -1, in, func(i int) int { return i }, func(int, int) error { return nil }); err == nil {
		t.Fatal("negative workers accepted")
	}
}
