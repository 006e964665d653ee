package redisstorage

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// ErrNotLocked is returned by Unlock for a name this Storage does not
// hold.
var ErrNotLocked = errors.New("redis storage: lock not held")

// ErrLockLost is returned by Unlock when the lock expired while held
// (its refreshes failed for LockTTL) and may have been taken by another
// holder, whose lock is left alone.
var ErrLockLost = errors.New("redis storage: lock expired while held")

// Waiting for a lock polls with backoff from firstPoll to maxPoll.
const (
	firstPoll = 20 * time.Millisecond
	maxPoll   = time.Second
)

// heldLock is a lock this Storage holds: the token that proves it, and
// the refresher keeping it alive.
type heldLock struct {
	token string
	stop  context.CancelFunc
	done  chan struct{}
}

func (s *Storage) lockKey(name string) string { return s.prefix + ":lock:" + clean(name) }

// Lock takes the lock name, waiting (polling with backoff) while another
// holder has it, until ctx is done. A held lock is refreshed every
// LockTTL/3 until Unlock; if its holder dies, it expires LockTTL after
// the last refresh. An error talking to Redis ends the wait with it.
func (s *Storage) Lock(ctx context.Context, name string) error {
	wait := firstPoll
	for {
		ok, err := s.TryLock(ctx, name)
		if err != nil || ok {
			return err
		}
		jitter := time.Duration(mrand.Int64N(int64(wait) / 2))
		t := time.NewTimer(wait/2 + jitter + wait/4)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("redis storage: waiting for lock %q: %w", name, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, maxPoll, s.lockTTL/2)
	}
}

// TryLock takes the lock name if no one holds it, and reports whether
// it did.
func (s *Storage) TryLock(ctx context.Context, name string) (bool, error) {
	token := newToken()
	ok, err := s.rdb.SetNX(ctx, s.lockKey(name), token, s.lockTTL).Result()
	if err != nil {
		return false, fmt.Errorf("redis storage: taking lock %q: %w", name, err)
	}
	if !ok {
		return false, nil
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	l := &heldLock{token: token, stop: stop, done: make(chan struct{})}
	s.mu.Lock()
	s.held[clean(name)] = l
	s.mu.Unlock()
	go s.refresh(rctx, name, l)
	return true, nil
}

// newToken is a random value no other holder has (128 bits).
func newToken() string { return rand.Text() }

// refreshScript extends the lock only if it still holds our token.
var refreshScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// refresh extends lock name every LockTTL/3 until ctx is done or the
// lock turns out lost. Failed refreshes (Redis unreachable) are retried
// at the next tick: the lock may still be there.
func (s *Storage) refresh(ctx context.Context, name string, l *heldLock) {
	defer close(l.done)
	t := time.NewTicker(s.lockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := refreshScript.Run(ctx, s.rdb, []string{s.lockKey(name)}, l.token, s.lockTTL.Milliseconds()).Int()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.logger.Warn("refreshing storage lock", zap.String("lock", name), zap.Error(err))
		case n == 0:
			s.logger.Warn("storage lock expired while held", zap.String("lock", name))
			return
		}
	}
}

// unlockScript deletes the lock only if it still holds our token: a lock
// that expired and was taken by another holder stays theirs.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0`)

// Unlock releases the lock name this Storage holds: ErrNotLocked if it
// holds none, ErrLockLost if the lock expired meanwhile.
func (s *Storage) Unlock(ctx context.Context, name string) error {
	s.mu.Lock()
	l := s.held[clean(name)]
	delete(s.held, clean(name))
	s.mu.Unlock()
	if l == nil {
		return fmt.Errorf("%w: %q", ErrNotLocked, name)
	}
	l.stop()
	<-l.done
	n, err := unlockScript.Run(ctx, s.rdb, []string{s.lockKey(name)}, l.token).Int()
	if err != nil {
		return fmt.Errorf("redis storage: releasing lock %q: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %q", ErrLockLost, name)
	}
	return nil
}
