package injector

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// pageWorkers is how many pages are staged at once. Staging a page is
// mostly waiting for the file system (reading the page, creating,
// writing, chmod-ing its temporary file), so a few more workers than
// cores keep both the cores and the disk busy.
const pageWorkers = 4

// stagePages stages every page file of the site (see stagePage) on
// pageWorkers goroutines and adds their temporary files to b, in page
// order. It returns the pages by index of r.pages (the zero stagedPage
// for pages without a file). The first error, in page order, stops the
// staging (pages not started yet are not staged) and is returned, as is
// Options.Abort being closed; b then holds every temporary file made, for
// b.abort to remove. Progress is reported from the calling goroutine, as
// each page is handed to a worker.
func (r *run) stagePages(store *blockStore, mc []byte, now time.Time, b *batch) ([]stagedPage, error) {
	out := make([]stagedPage, len(r.pages))
	errs := make([]error, len(r.pages))
	jobs := make(chan int)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(pageWorkers, len(r.pages)) {
		wg.Go(func() {
			for i := range jobs {
				if stop.Load() {
					continue
				}
				out[i], errs[i] = r.stagePage(store, r.pages[i], mc, now)
				if errs[i] != nil {
					errs[i] = fmt.Errorf("page %s: %w", r.pages[i].File, errs[i])
					stop.Store(true)
				}
			}
		})
	}
	for i, p := range r.pages {
		r.o.progress(Progress{Phase: PhaseWrite, Name: p.URL, Done: int64(i), Total: int64(len(r.pages))})
		if stop.Load() || r.aborted() != nil {
			break
		}
		if p.File != "" {
			jobs <- i
		}
	}
	close(jobs)
	wg.Wait()
	for i := range out {
		if out[i].tmp.tmp != "" {
			b.pending = append(b.pending, out[i].tmp)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := r.aborted(); err != nil {
		return nil, err
	}
	return out, nil
}
