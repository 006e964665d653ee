package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// Progress lines: on a terminal one line rewritten in place at most
// ttyEvery, otherwise a plain line at most every logEvery (the first at
// once), so logs of long runs show they are alive without flooding.
const (
	ttyEvery = 100 * time.Millisecond
	logEvery = 5 * time.Second
)

// progressLine shows a run's progress on stderr; safe for concurrent use
// (notes come from the goroutine that watches for signals).
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time
	open  bool // a terminal line is shown and not yet ended
}

func newProgressLine(w io.Writer) *progressLine {
	tty := false
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil {
			tty = info.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progressLine{w: w, tty: tty, start: time.Now()}
}

// elapsed is the time since the line was made, rounded to seconds.
func (p *progressLine) elapsed() time.Duration { return time.Since(p.start).Round(time.Second) }

// show prints line, unless one was printed too recently; final lines are
// always shown (and end the terminal line).
func (p *progressLine) show(line string, final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	every := logEvery
	if p.tty {
		every = ttyEvery
	}
	if !final && !p.last.IsZero() && time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	fmt.Fprintf(p.w, "\r%-79s", line)
	p.open = !final
	if final {
		fmt.Fprintln(p.w)
	}
}

// end finishes a terminal line left open, so what follows starts on a
// line of its own.
func (p *progressLine) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
}

func (p *progressLine) endLocked() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// note prints a line of its own, below a terminal line left open.
func (p *progressLine) note(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
	fmt.Fprintln(p.w, line)
}

// recoverProgress shows captures fetched and stripes rebuilt.
func recoverProgress(w io.Writer) func(lzrecover.Progress) {
	pl := newProgressLine(w)
	return func(p lzrecover.Progress) {
		eta := "?"
		if elapsed := time.Since(pl.start); p.Fetched > 0 && p.Listed >= p.Fetched {
			eta = (elapsed / time.Duration(p.Fetched) * time.Duration(p.Listed-p.Fetched)).Round(time.Second).String()
		}
		line := fmt.Sprintf("lazarus: %d/%d captures fetched, %d/%d stripes rebuilt, %s elapsed, at most %s left",
			p.Fetched, p.Listed, p.Complete, p.Stripes, pl.elapsed(), eta)
		pl.show(line, p.Stripes > 0 && p.Complete == p.Stripes)
	}
}

// injectStatus shows what inject is doing: listing includes, running a
// dump, packing (bytes of content), planning, writing (pages); and
// remembers the phase, so a signal is answered in the words of the moment.
type injectStatus struct {
	pl    *progressLine
	mu    sync.Mutex
	phase injector.Phase
}

func newInjectStatus(w io.Writer) *injectStatus {
	return &injectStatus{pl: newProgressLine(w)}
}

// report is the run's injector.Options.Progress.
func (s *injectStatus) report(p injector.Progress) {
	s.mu.Lock()
	s.phase = p.Phase
	s.mu.Unlock()
	if p.Phase == injector.PhaseDone {
		s.pl.end()
		return
	}
	s.pl.show(fmt.Sprintf("lazarus: %s, %s elapsed", injectStep(p), s.pl.elapsed()), false)
}

// writing reports whether the run saved its new state and writes its
// outputs, which a first signal no longer stops.
func (s *injectStatus) writing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.phase == injector.PhaseWrite
}

// watch says at once what a first signal does once the run is writing
// its outputs (it goes on) and what a second one does. The returned
// function stops watching; nothing is printed after it returns.
func (s *injectStatus) watch(sig *interrupt) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-sig.ctx.Done():
		case <-done:
			return
		}
		if !sig.stopped() || !s.writing() {
			return
		}
		s.pl.note(fmt.Sprintf("lazarus: %v after the new state was saved: finishing the pages; "+
			"a second Ctrl-C (or SIGTERM) stops between two pages, and the next run completes them", context.Cause(sig.ctx)))
		select {
		case <-sig.again.Done():
			s.pl.note("lazarus: stopping between two pages and removing the temporary files")
		case <-done:
		}
	})
	return sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
}

// injectStep says in words what a progress report is about.
func injectStep(p injector.Progress) string {
	switch p.Phase {
	case injector.PhaseCollect:
		return fmt.Sprintf("listing include %d of %d (%s)", p.Done+1, p.Total, p.Name)
	case injector.PhaseDump:
		return fmt.Sprintf("running dump %d of %d (%s)", p.Done+1, p.Total, p.Name)
	case injector.PhasePack:
		return fmt.Sprintf("packing and encrypting: %s of %s", formatSize(p.Done), formatSize(p.Total))
	case injector.PhasePlan:
		return "finding carrier pages and placing blocks"
	case injector.PhaseSave:
		return "saving the new state"
	case injector.PhaseWrite:
		if p.Total == 0 {
			return "writing"
		}
		return fmt.Sprintf("writing: page %d of %d", min(p.Done+1, p.Total), p.Total)
	}
	return string(p.Phase)
}
