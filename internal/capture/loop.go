package capture

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/ondemand"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// tries is what a run asked one archive for one page.
type tries struct {
	n     int       // requests sent
	due   time.Time // not asked for again before
	taken bool      // the archive took the last request
}

// asker is one requester during a run.
type asker struct {
	r       ondemand.Requester
	pages   map[string]*tries
	sum     *Requests
	stopped error // the error that ended requests to it, if any
}

// loop is the capture-and-confirm loop of one Run.
type loop struct {
	o      *Options
	rep    *Report
	live   *verify.LiveGeneration
	askers []*asker
}

func newLoop(o *Options, rep *Report, live *verify.LiveGeneration) *loop {
	l := &loop{o: o, rep: rep, live: live}
	rep.Requests = make([]Requests, len(o.Requesters))
	for i, r := range o.Requesters {
		rep.Requests[i] = Requests{Archive: r.Archive(), Keyed: r.Keyed()}
		l.askers = append(l.askers, &asker{r: r, pages: map[string]*tries{}, sum: &rep.Requests[i]})
	}
	return l
}

// run sends the first plan to every archive, then audits every
// WaitEvery within Wait until the archives hold the generation, asking
// again after each audit for what is due. Without Wait, when no archive
// took a request (nor started a job), nothing new can show: it does not
// audit again. It returns the first error
// that stopped requests to an archive (stop), and err when the run
// cannot go on: ctx's, a refused key, or no archive reachable.
func (l *loop) run(ctx context.Context) (stop, err error) {
	deadline := time.Now().Add(l.o.Wait)
	l.round(ctx, func(*asker) []Page { return l.rep.Plan })
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := l.cannotGoOn(); err != nil {
		return err, err
	}
	if l.o.Wait == 0 && l.rep.Sent == 0 {
		return l.stop(), nil // no archive took a request: the first audit stands
	}
	for {
		l.o.progress(Progress{Phase: "audit", Audits: l.rep.Audits})
		arch, err := auditArchives(ctx, l.o.Status)
		if err != nil {
			return l.stop(), err
		}
		l.rep.Audits++
		l.rep.observe(arch, l.live.ID)
		if l.rep.Safe || !time.Now().Before(deadline) {
			return l.stop(), nil
		}
		l.round(ctx, func(a *asker) []Page { return l.again(a, arch) })
		if ctx.Err() != nil {
			return l.stop(), ctx.Err()
		}
		l.o.progress(Progress{Phase: "wait", Audits: l.rep.Audits})
		if err := fetch.Sleep(ctx, min(l.o.WaitEvery, max(time.Until(deadline), 0))); err != nil {
			return l.stop(), err
		}
	}
}

// round asks every archive still taking requests for the pages plan
// gives it; a round that sends nothing does not count.
func (l *loop) round(ctx context.Context, plan func(*asker) []Page) {
	counted := false
	for _, a := range l.askers {
		if a.stopped != nil {
			continue
		}
		pages := plan(a)
		if len(pages) == 0 {
			continue
		}
		if !counted {
			l.rep.Rounds++
			counted = true
		}
		if l.rep.Rounds > 1 {
			l.o.progress(Progress{Phase: "retry", Pages: pages, Audits: l.rep.Audits})
		}
		l.send(ctx, a, pages)
	}
}

// send asks one archive for pages and records every outcome, in the
// pages' order.
func (l *loop) send(ctx context.Context, a *asker, pages []Page) {
	urls := make([]string, len(pages))
	at := map[string]int{}
	for i, p := range pages {
		urls[i], at[p.URL] = p.URL, i
	}
	jobs := make([]Job, len(urls))
	err := a.r.SaveAll(ctx, urls, func(r ondemand.Result) {
		j := l.record(a, r, time.Now())
		if i, ok := at[r.URL]; ok {
			jobs[i] = j
		}
		l.o.progress(Progress{Phase: "job", Job: &j, Audits: l.rep.Audits})
	})
	l.rep.Jobs = append(l.rep.Jobs, jobs...)
	if err != nil {
		a.stopped, a.sum.Stopped = err, err.Error()
		if l.rep.Stopped == "" {
			l.rep.Stopped = err.Error()
		}
	}
}

// record counts one request's outcome and says when its page is due
// again: after Grace if the archive took it (its capture should show by
// then), after Retry doubled per earlier failure if not.
func (l *loop) record(a *asker, r ondemand.Result, now time.Time) Job {
	t := a.pages[r.URL]
	if t == nil {
		t = &tries{}
		a.pages[r.URL] = t
	}
	j := Job{URL: r.URL, Archive: a.r.Archive(), State: r.State, JobID: r.JobID, Time: r.Time}
	if r.Err != nil {
		j.Error = r.Err.Error()
	}
	if r.State == ondemand.StateNotSent {
		return j
	}
	t.n++
	j.Attempt = t.n
	s := a.sum
	s.Sent++
	if s.First.IsZero() {
		s.First = now.UTC()
	}
	s.Last = now.UTC()
	switch {
	case r.Taken():
		t.taken, t.due = true, now.Add(l.o.Grace)
		s.Taken++
		l.rep.Sent++
		if r.State == ondemand.StateSuccess {
			s.Captured++
			l.rep.Captured++
		}
	default:
		t.taken, t.due = false, now.Add(l.o.Retry<<min(t.n-1, 16))
		if r.JobID != "" {
			l.rep.Sent++ // a job started, then failed or was abandoned
		}
		if r.State == ondemand.StateError {
			s.Failed++
			l.rep.Failed++
		}
	}
	return j
}

// again plans what to ask archive a for after an audit found the
// generation short: the blocks of pages it took less than Grace ago
// count as coming; pages asked for Attempts times, and pages not due,
// are left out, so the plan turns to other pages carrying what is
// missing; at most Max requests in all.
func (l *loop) again(a *asker, arch *archived) []Page {
	now := time.Now()
	held := maps.Clone(arch.Shards)
	if held == nil {
		held = map[manifest.BlockKey]bool{}
	}
	manifestHeld := arch.Manifests[l.live.ID]
	var candidates []verify.LivePage
	for _, p := range l.live.Pages {
		t := a.pages[p.URL]
		switch {
		case t == nil:
			candidates = append(candidates, p)
		case t.taken && now.Before(t.due):
			for _, b := range p.Blocks {
				held[b] = true
			}
			manifestHeld = manifestHeld || p.Manifest
		case t.n < l.o.Attempts && !now.Before(t.due):
			candidates = append(candidates, p)
		}
	}
	left := len(candidates)
	if l.o.Max > 0 {
		left = min(left, l.o.Max-a.sum.Sent)
	}
	if left <= 0 {
		return nil
	}
	return capturePlan(candidates, stripeNeeds(l.live.Segments, held, max(l.o.Margin, 0)), manifestHeld, left)
}

// cannotGoOn is the error that ends the run after the first round: every
// archive refused the key or could not be reached.
func (l *loop) cannotGoOn() error {
	for _, a := range l.askers {
		if !errors.Is(a.stopped, spn.ErrRefused) && !errors.Is(a.stopped, spn.ErrUnreachable) {
			return nil
		}
	}
	return l.askers[0].stopped
}

// stop is the first error that stopped requests to an archive.
func (l *loop) stop() error {
	for _, a := range l.askers {
		if a.stopped != nil {
			return a.stopped
		}
	}
	return nil
}

// AttemptsWithin is how many requests a run makes for a page within d of
// the first, at most attempts: it asks again retry after a failure, the
// pause doubling after each (the loop's schedule, see loop.record).
func AttemptsWithin(d, retry time.Duration, attempts int) int {
	n, at, pause := 1, time.Duration(0), retry
	for n < attempts && at+pause <= d {
		at += pause
		pause *= 2
		n++
	}
	return n
}
