package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Exit codes of a run stopped by a signal: 128 + the signal's number, as
// shells report a process the signal killed.
const (
	exitInterrupted = 130 // SIGINT, Ctrl-C
	exitTerminated  = 143 // SIGTERM (systemctl stop, kill)
)

// interrupt turns SIGINT and SIGTERM into cancellations for the whole
// run: the first signal cancels ctx, the second cancels again. Neither
// kills the process, so a run can always clean up after itself (inject
// removes its temporary files, demo its temporary directory) unless it
// asks for exitOnSecond (recover, whose journal survives a kill); the
// default action comes back only with stop.
type interrupt struct {
	ctx   context.Context // done after the first signal
	again context.Context // done after the second
	stop  func()

	mu    sync.Mutex
	first os.Signal // the first signal received, nil if none
}

// notifyInterrupt starts diverting SIGINT and SIGTERM to the contexts;
// call stop when the work is over.
func notifyInterrupt() *interrupt {
	ctx, cancel := context.WithCancelCause(context.Background())
	again, cancelAgain := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	i := &interrupt{ctx: ctx, again: again}
	go func() {
		for {
			select {
			case s := <-ch:
				i.received(s, cancel, cancelAgain)
			case <-done:
				return
			}
		}
	}()
	i.stop = sync.OnceFunc(func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
		cancelAgain(context.Canceled)
	})
	return i
}

// received cancels ctx on the first signal, again on the next.
func (i *interrupt) received(s os.Signal, cancel, cancelAgain context.CancelCauseFunc) {
	cause := signalError(s.String() + " signal received")
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.first == nil {
		i.first = s
		cancel(cause)
		return
	}
	cancelAgain(cause)
}

// exitOnSecond makes a second signal end the process at once, after say
// has said so, with the first signal's exit code: for runs whose work
// survives a kill (recover's journal), so a run slow to stop can still be
// stopped at once.
func (i *interrupt) exitOnSecond(say func()) {
	go func() {
		<-i.again.Done()
		if i.stoppedAgain() {
			say()
			os.Exit(i.code())
		}
	}()
}

// stopped reports whether a signal cancelled the run.
func (i *interrupt) stopped() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.first != nil
}

// stoppedAgain reports whether a second signal came.
func (i *interrupt) stoppedAgain() bool { return bySignal(i.again) }

// code is the exit code of a run the signals stopped, after the first
// signal: 143 for SIGTERM, else 130.
func (i *interrupt) code() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.first == syscall.SIGTERM {
		return exitTerminated
	}
	return exitInterrupted
}

// bySignal reports whether a signal, not stop, cancelled the context:
// stop's cause is context.Canceled itself.
func bySignal(ctx context.Context) bool {
	return ctx.Err() != nil && context.Cause(ctx) != context.Canceled
}

// signalError is the cause of a cancellation by a signal, worded as
// signal.NotifyContext words it; errors.Is finds context.Canceled in it.
type signalError string

func (s signalError) Error() string { return string(s) }

// Is reports whether target is context.Canceled.
func (s signalError) Is(target error) bool { return target == context.Canceled }
