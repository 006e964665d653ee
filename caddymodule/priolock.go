package caddymodule

import "sync"

// prioLock is a mutex handed to its waiters in order, urgent ones first:
// a page that counts toward coverage (verified) waits for the record
// being made, not for a queue of records of pages nothing links to.
type prioLock struct {
	mu     sync.Mutex
	busy   bool
	urgent []chan struct{} // waiters, in arrival order
	normal []chan struct{}
}

func newPrioLock() *prioLock { return &prioLock{} }

// lock takes the lock; an urgent caller goes before every waiter that
// is not.
func (l *prioLock) lock(urgent bool) {
	l.mu.Lock()
	if !l.busy {
		l.busy = true
		l.mu.Unlock()
		return
	}
	turn := make(chan struct{})
	if urgent {
		l.urgent = append(l.urgent, turn)
	} else {
		l.normal = append(l.normal, turn)
	}
	l.mu.Unlock()
	<-turn // the lock is handed over, still busy
}

// unlock hands the lock to the first urgent waiter, else the first
// other one, else frees it.
func (l *prioLock) unlock() {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case len(l.urgent) > 0:
		close(l.urgent[0])
		l.urgent = l.urgent[1:]
	case len(l.normal) > 0:
		close(l.normal[0])
		l.normal = l.normal[1:]
	default:
		l.busy = false
	}
}

// waiting is the number of callers waiting for the lock.
func (l *prioLock) waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.urgent) + len(l.normal)
}
