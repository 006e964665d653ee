package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes of a run stopped by a signal: 128 + the signal's number, as
// shells report a process the signal killed.
const (
	exitInterrupted = 130 // SIGINT, Ctrl-C
	exitTerminated  = 143 // SIGTERM (systemctl stop, kill)
)

// interrupt is a context cancelled by the first SIGINT or SIGTERM. After
// that first signal the default action is back, so a second Ctrl-C stops
// the program at once.
type interrupt struct {
	ctx  context.Context
	term context.Context // done after SIGTERM
	stop func()
}

// notifyInterrupt starts diverting SIGINT and SIGTERM to the context;
// call stop when the work is over.
func notifyInterrupt() *interrupt {
	term, stopTerm := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	ctx, stopInt := signal.NotifyContext(term, os.Interrupt)
	i := &interrupt{ctx: ctx, term: term, stop: func() { stopInt(); stopTerm() }}
	go func() {
		<-ctx.Done()
		i.stop()
	}()
	return i
}

// stopped reports whether a signal cancelled the context.
func (i *interrupt) stopped() bool { return bySignal(i.ctx) }

// code is the exit code of a run the signal stopped.
func (i *interrupt) code() int {
	if bySignal(i.term) {
		return exitTerminated
	}
	return exitInterrupted
}

// bySignal reports whether a signal, not stop, cancelled a context made by
// signal.NotifyContext: stop's cause is context.Canceled itself.
func bySignal(ctx context.Context) bool {
	return ctx.Err() != nil && context.Cause(ctx) != context.Canceled
}
