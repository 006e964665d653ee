package spn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
)

// StateNotSent is Result.State of a URL never submitted (the run ended
// first); StateAbandoned of a job still pending when the client stopped
// polling it (JobTimeout, or the run was cancelled).
const (
	StateNotSent   = "not-sent"
	StateAbandoned = "abandoned"
)

// Result is what became of one URL.
type Result struct {
	URL   string
	JobID string // "" if the submission failed or was never made
	// State is StateSuccess, StateError, StateAbandoned or StateNotSent.
	State string
	// OriginalURL and Time name the capture, on success.
	OriginalURL string
	Time        time.Time
	// Err says why, in state StateError (a *JobError for the API's
	// answers).
	Err error
	// Submitted is when the job was accepted; Finished when its outcome
	// was known.
	Submitted, Finished time.Time
}

// SaveAll asks the API to capture urls, submitted in the order given,
// with at most MaxPending jobs pending and the submission window
// honoured, and calls each (never concurrently) with every URL's result
// as it is known. It returns once every submitted job finished or was
// abandoned; the error is the one that ended the run early (wrapping
// ErrRefused, ErrDailyLimit, ErrHostPaused, or ctx's), and the URLs not
// submitted then are reported as StateNotSent.
func (c *Client) SaveAll(ctx context.Context, urls []string, each func(Result)) error {
	var mu sync.Mutex
	report := func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		each(r)
	}
	var wg sync.WaitGroup
	var stop error
	for i, u := range urls {
		if stop = c.acquire(ctx); stop != nil {
			notSent(urls[i:], report)
			break
		}
		id, err := c.Submit(ctx, u)
		if err != nil {
			c.release()
			if fatal(err) || ctx.Err() != nil {
				stop = err
				report(Result{URL: u, State: StateError, Err: err, Finished: time.Now()})
				notSent(urls[i+1:], report)
				break
			}
			report(Result{URL: u, State: StateError, Err: err, Finished: time.Now()})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.release()
			report(c.await(ctx, u, id, time.Now()))
		}()
	}
	wg.Wait()
	if stop != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return stop
}

func notSent(urls []string, report func(Result)) {
	for _, u := range urls {
		report(Result{URL: u, State: StateNotSent})
	}
}

func (c *Client) acquire(ctx context.Context) error {
	select {
	case c.pending <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Client) release() { <-c.pending }

// await polls job id of u until it finishes, JobTimeout passes (status
// polls and their retries included) or ctx is done.
func (c *Client) await(ctx context.Context, u, id string, submitted time.Time) Result {
	r := Result{URL: u, JobID: id, State: StateAbandoned, Submitted: submitted}
	deadline := submitted.Add(c.o.JobTimeout)
	job, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	timedOut := fmt.Errorf("still pending after %v", c.o.JobTimeout)
	for i := 0; ; i++ {
		wait := backoff(i, c.o.PollStart, c.o.PollMax)
		if time.Now().Add(wait).After(deadline) {
			r.Err = timedOut
			return r
		}
		if err := fetch.Sleep(ctx, wait); err != nil {
			r.Err = err
			return r
		}
		j, err := c.Status(job, id)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				r.Err = ctx.Err()
				return r
			case job.Err() != nil:
				r.Err = timedOut
				return r
			}
			r.State, r.Err, r.Finished = StateError, err, time.Now()
			return r
		}
		switch j.State {
		case StateSuccess:
			r.State, r.OriginalURL, r.Time, r.Finished = StateSuccess, j.OriginalURL, j.Time, time.Now()
			if !sameSite(u, j.OriginalURL) {
				r.State, r.Err = StateError, &JobError{Ext: ExtForeignTarget, Message: "the capture is of " + j.OriginalURL}
			}
			return r
		case StateError:
			r.State, r.Err, r.Finished = StateError, j.Err, time.Now()
			return r
		}
	}
}

// sameSite reports whether the captured URL is on the requested URL's
// host (a leading "www." and the scheme aside); an empty captured URL
// is the requested one.
func sameSite(requested, captured string) bool {
	if captured == "" {
		return true
	}
	a, err1 := url.Parse(requested)
	b, err2 := url.Parse(captured)
	if err1 != nil || err2 != nil {
		return false
	}
	bare := func(u *url.URL) string { return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") }
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" && p != "80" && p != "443" {
			return p
		}
		return ""
	}
	return bare(a) == bare(b) && port(a) == port(b)
}

// Fatal reports whether err ends a whole run (ErrRefused, ErrDailyLimit,
// ErrHostPaused, ErrWaitTooLong), not just one job.
func Fatal(err error) bool { return err != nil && fatal(err) && !errors.Is(err, context.Canceled) }
