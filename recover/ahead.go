package recover

import (
	"context"
	"runtime"

	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// Reading ahead. The captures of local sources (WARC files, a mirror
// directory) cost no request, so they are read on one goroutine and
// scanned (codec.Assembler.Scan: finding the comments, decoding, hashing,
// checking signatures) on several, ahead of the session. The session
// still takes them one at a time, in the order it would have fetched
// them (codec.ScanOrdered), and does everything that depends on what came
// before on its own goroutine: finished, seenBefore, the report, adding
// the scanned blocks, saving pages. So reports, pages and restored files
// are those of a session scanning each capture as it takes it, run after
// run and whatever the number of workers.
//
// What is read ahead and not yet taken is bounded by aheadBytes of
// captures (one capture larger than that is read alone), besides
// ScanOrdered's bound of codec.InFlightPerWorker captures per worker; a
// scanned capture holds its decoded blocks, at most about its own size,
// on top. A capture read ahead that the session then leaves (its digest
// seen before, the recovery finished) costs only the work done on it.

// aheadBytes bounds the bytes of captures read ahead and not yet taken.
const aheadBytes = 64 << 20

// scanWorkers is how many goroutines scan captures read ahead; 0 means
// GOMAXPROCS. With 1, nothing is read ahead: each capture is scanned on
// the session's goroutine as it is taken. Tests set it.
var scanWorkers = 0

// workers returns how many goroutines scan captures read ahead.
func workers() int {
	if scanWorkers > 0 {
		return scanWorkers
	}
	return runtime.GOMAXPROCS(0)
}

// readAhead is one capture read ahead of the session.
type readAhead struct {
	q    queued
	page []byte
	err  error // why it could not be read
	scan bool  // worth scanning ahead: the session will likely take it
}

// ahead hands the captures feed sends to take, in the order sent, with
// what scanning each (if worth it) found, scanning on workers goroutines
// while feed reads on its own. feed must stop once ctx is done; take
// returning an error stops both. ahead returns take's error (or ctx's),
// and feed's.
func (s *session) ahead(ctx context.Context, feed func(ctx context.Context, send func(*readAhead) error) error,
	take func(*readAhead, *codec.Scanned) error) (err, feedErr error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	budget := source.NewBudget(aheadBytes)
	in := make(chan *readAhead)
	fed := make(chan error, 1)
	go func() {
		defer close(in)
		fed <- feed(ctx, func(r *readAhead) error {
			if err := budget.Acquire(ctx, int64(len(r.page))); err != nil {
				return err
			}
			select {
			case in <- r:
				return nil
			case <-ctx.Done():
				budget.Release(int64(len(r.page)))
				return ctx.Err()
			}
		})
	}()
	err = codec.ScanOrdered(ctx, workers(), in, s.scanAhead, func(r *readAhead, sc *codec.Scanned) error {
		defer budget.Release(int64(len(r.page)))
		return take(r, sc)
	})
	cancel()
	for range in { // let feed see ctx and return
	}
	return err, <-fed
}

// scanAhead scans a capture read ahead, if worth it.
func (s *session) scanAhead(r *readAhead) *codec.Scanned {
	if !r.scan || r.err != nil {
		return nil
	}
	return s.a.Scan(r.page, origin(r.q.c))
}

// origin is where a capture's blocks come from.
func origin(c source.Capture) codec.Origin {
	return codec.Origin{Source: c.Source, URL: c.URL, Time: c.Time}
}
