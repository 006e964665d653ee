package spn

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
)

// Limit is a rate: at most N events in any window of length Per.
type Limit struct {
	N   int
	Per time.Duration
}

// DefaultRate is Options.Rate's default: the 12 captures a minute SPN2
// allows a logged-in user.
var DefaultRate = Limit{N: 12, Per: time.Minute}

// ParseLimit reads a rate such as "12/min", "1/s", "100/h" or "12" (per
// minute).
func ParseLimit(s string) (Limit, error) {
	num, unit, hasUnit := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 1 || n > 1_000_000 {
		return Limit{}, fmt.Errorf("rate %q: want a count from 1 like 12/min", s)
	}
	per := time.Minute
	if hasUnit {
		switch strings.ToLower(strings.TrimSpace(unit)) {
		case "s", "sec", "second":
			per = time.Second
		case "m", "min", "minute":
		case "h", "hour":
			per = time.Hour
		default:
			return Limit{}, fmt.Errorf("rate %q: want a unit of s, min or h", s)
		}
	}
	return Limit{N: n, Per: per}, nil
}

// Above reports whether l allows more events over time than m.
func (l Limit) Above(m Limit) bool {
	return int64(l.N)*int64(m.Per) > int64(m.N)*int64(l.Per)
}

// String writes the limit as ParseLimit reads it.
func (l Limit) String() string {
	switch l.Per {
	case time.Second:
		return fmt.Sprintf("%d/s", l.N)
	case time.Minute:
		return fmt.Sprintf("%d/min", l.N)
	case time.Hour:
		return fmt.Sprintf("%d/h", l.N)
	}
	return fmt.Sprintf("%d per %v", l.N, l.Per)
}

// window admits at most l.N events in any window of length l.Per, and
// holds every event until a pause the server asked for is over. Safe for
// concurrent use.
type window struct {
	l     Limit
	slack time.Duration // added to every wait: the server counts arrivals, not sends
	mu    sync.Mutex
	sent  []time.Time // the last l.N admitted events, oldest first
	until time.Time   // no event before this (Retry-After)
}

func newWindow(l Limit) *window {
	return &window{l: l, slack: min(l.Per/50, time.Second)}
}

// wait blocks until an event is allowed, and counts it.
func (w *window) wait(ctx context.Context) error {
	for {
		w.mu.Lock()
		now := time.Now()
		at := w.until
		if len(w.sent) == w.l.N {
			at = later(at, w.sent[0].Add(w.l.Per+w.slack))
		}
		if !at.After(now) {
			w.sent = append(w.sent, now)
			if len(w.sent) > w.l.N {
				w.sent = w.sent[1:]
			}
			w.mu.Unlock()
			return nil
		}
		w.mu.Unlock()
		if err := fetch.Sleep(ctx, at.Sub(now)); err != nil {
			return err
		}
	}
}

// pause holds every event for d from now (a server's Retry-After).
func (w *window) pause(d time.Duration) {
	w.mu.Lock()
	w.until = later(w.until, time.Now().Add(d))
	w.mu.Unlock()
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// backoff is the wait before poll or retry number i (from 0): start,
// doubling, at most ceiling.
func backoff(i int, start, ceiling time.Duration) time.Duration {
	d := start << min(i, 20)
	if d <= 0 || d > ceiling {
		return ceiling
	}
	return d
}

// retryAfterOf is an answer's Retry-After (seconds or an HTTP date), 0
// if none.
func retryAfterOf(resp *http.Response) time.Duration {
	return fetch.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
}
