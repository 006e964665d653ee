package redisstorage

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// lockTTL is short so that expiry tests take a fraction of a second.
const lockTTL = 300 * time.Millisecond

// lockWait bounds every wait for a lock in these tests; it asserts
// nothing about speed.
const lockWait = 20 * time.Second

// TestLockExclusion: two Storages (two Caddy instances) on one server,
// several goroutines each: never two holders of one lock at once, and
// every Lock gets its turn.
func TestLockExclusion(t *testing.T) {
	a, srv := newStorage(t, Options{LockTTL: lockTTL})
	b := New(srv.Client(t), Options{LockTTL: lockTTL})
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	var inside, turns atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		st := []*Storage{a, b}[i%2]
		wg.Go(func() {
			for range 5 {
				if err := st.Lock(ctx, "build"); err != nil {
					t.Error(err)
					return
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("%d holders of one lock", n)
				}
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				turns.Add(1)
				if err := st.Unlock(ctx, "build"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if turns.Load() != 40 {
		t.Errorf("%d turns, want 40", turns.Load())
	}
}

// TestLockOutlivesTTL: a holder that stays alive keeps its lock well past
// LockTTL (the refresher extends it); the other instance does not get it.
func TestLockOutlivesTTL(t *testing.T) {
	a, srv := newStorage(t, Options{LockTTL: lockTTL})
	b := New(srv.Client(t), Options{LockTTL: lockTTL})
	ctx := context.Background()
	if err := a.Lock(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(4 * lockTTL)
	for time.Now().Before(deadline) {
		if ok, err := b.TryLock(ctx, "x"); err != nil || ok {
			t.Fatalf("TryLock while another instance holds the lock: %v, %v", ok, err)
		}
		time.Sleep(lockTTL / 10)
	}
	if err := a.Unlock(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(ctx, "x"); err != nil || !ok {
		t.Fatalf("TryLock after Unlock: %v, %v", ok, err)
	}
}

// TestLockExpiry: a holder that stops refreshing (it died or froze) loses
// the lock after LockTTL; another instance takes it; the stale holder's
// Unlock reports ErrLockLost and leaves the new holder's lock alone.
func TestLockExpiry(t *testing.T) {
	a, srv := newStorage(t, Options{LockTTL: lockTTL})
	b := New(srv.Client(t), Options{LockTTL: lockTTL})
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	if err := a.Lock(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	held := a.held["x"]
	a.mu.Unlock()
	held.stop() // a freezes: no more refreshes
	<-held.done
	if err := b.Lock(ctx, "x"); err != nil {
		t.Fatalf("the other instance never got the expired lock: %v", err)
	}
	if err := a.Unlock(ctx, "x"); !errors.Is(err, ErrLockLost) {
		t.Errorf("stale holder's Unlock = %v, want ErrLockLost", err)
	}
	if ok, err := a.TryLock(ctx, "x"); err != nil || ok {
		t.Errorf("the stale holder's Unlock released the new holder's lock (TryLock = %v, %v)", ok, err)
	}
	if err := b.Unlock(ctx, "x"); err != nil {
		t.Errorf("new holder's Unlock: %v", err)
	}
}

// TestLockDeadHolder: a holder whose connection is gone for good (its
// process died) frees the lock after LockTTL.
func TestLockDeadHolder(t *testing.T) {
	srv := redistest.Start(t)
	dead := srv.Client(t)
	a := New(dead, Options{LockTTL: lockTTL})
	b := New(srv.Client(t), Options{LockTTL: lockTTL})
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	if err := a.Lock(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	dead.Close()
	if err := b.Lock(ctx, "x"); err != nil {
		t.Fatalf("the lock of a dead holder was never freed: %v", err)
	}
	b.Unlock(ctx, "x")
}

// TestLockContext: Lock gives up when its context ends; Unlock of a lock
// not held is ErrNotLocked; distinct names do not exclude each other.
func TestLockContext(t *testing.T) {
	a, srv := newStorage(t, Options{LockTTL: lockTTL})
	b := New(srv.Client(t), Options{LockTTL: lockTTL})
	ctx := context.Background()
	if err := a.Lock(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 3*lockTTL)
	defer cancel()
	if err := b.Lock(short, "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock of a held lock with a short context = %v", err)
	}
	if err := b.Lock(ctx, "y"); err != nil {
		t.Errorf("Lock of another name: %v", err)
	}
	if err := b.Unlock(ctx, "x"); !errors.Is(err, ErrNotLocked) {
		t.Errorf("Unlock of a lock not held = %v, want ErrNotLocked", err)
	}
	var _ certmagic.Locker = a
}
