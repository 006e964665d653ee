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
	"github.com/lazarus-preserve/lazarus/internal/ondemand"
)

// States of a Result beyond a job's success and error (ondemand's):
// StateNotSent is a URL never submitted (the run ended first),
// StateAbandoned a job still pending when the client stopped polling it
// (JobTimeout, or the run was cancelled), StateAccepted a request without
// keys whose answer named no capture (the listing decides).
const (
	StateNotSent   = ondemand.StateNotSent
	StateAbandoned = ondemand.StateAbandoned
	StateAccepted  = ondemand.StateAccepted
)

// Result is what became of one URL (ondemand.Result: the client is the
// Internet Archive's ondemand.Requester).
type Result = ondemand.Result

// SaveAll asks the API to capture urls, submitted in the order given,
// with at most MaxPending jobs pending and the submission window
// honoured, and calls each (never concurrently) with every URL's result
// as it is known. It returns once every submitted job finished or was
// abandoned; the error is the one that ended the run early (wrapping
// ErrRefused, ErrKeysRequired, ErrDailyLimit, ErrHostPaused, or ctx's),
// and the URLs not submitted then are reported as StateNotSent. Without
// keys (Options.Credentials zero) each URL is a GET /save/{url}, whose
// answer names the capture, names a job to poll, or names neither
// (StateAccepted: the archive's listing decides).
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
		id, done, err := c.submit(ctx, u)
		if done != nil {
			c.release()
			report(*done)
			continue
		}
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

// submit sends one request: POST /save with keys, GET /save/{u}
// without. It returns the job id to poll, or the final result when the
// answer without keys already says it.
func (c *Client) submit(ctx context.Context, u string) (string, *Result, error) {
	if c.anon {
		return c.saveAnonymous(ctx, u)
	}
	id, err := c.Submit(ctx, u)
	return id, nil, err
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

// Fatal reports whether err ends a whole run (ErrRefused,
// ErrKeysRequired, ErrDailyLimit, ErrHostPaused, ErrWaitTooLong,
// ErrUnreachable), not just one job.
func Fatal(err error) bool { return err != nil && fatal(err) && !errors.Is(err, context.Canceled) }
