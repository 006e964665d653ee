package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
)

// publish makes generation id current if the current key still holds
// old, what this build started from (nil: nothing), in one step on a
// storage that can (see compareAndSwap); then notes when. A build that
// finds another generation published meanwhile publishes nothing: of two
// builders that both started from old (one stalled past the lock's
// lifetime), one publishes.
func (b *builder) publish(ctx context.Context, old []byte, id string) error {
	ok, err := compareAndSwap(ctx, b.st, b.bundle.prefix+"current", old, []byte(id+"\n"))
	if err != nil {
		return err
	}
	if !ok {
		_, now, _ := b.currentValue(ctx)
		return errPublishedMeanwhile(now, id)
	}
	now := b.h.now().UTC().Format(time.RFC3339Nano) + "\n"
	return b.st.Store(ctx, b.prefix+"published/"+id, []byte(now))
}

// prune deletes the generations (and their publication times) that no
// instance may still serve or carry along; on any doubt it keeps them.
// ours is the generation this build left current, replaced the one it
// replaced ("" if none, or ours). It keeps what retained keeps from
// either, and the generation current now, and deletes no generation
// stored after ours: those are another instance's, published or being
// stored since (a builder that stalled here past the lock's lifetime
// must not delete them).
func (b *builder) prune(ctx context.Context, ours, replaced string) {
	keep, err := b.retained(ctx, ours)
	if err == nil && replaced != "" && replaced != ours {
		var more []string
		more, err = b.retained(ctx, replaced)
		keep = append(keep, more...)
	}
	if _, now, cerr := b.currentValue(ctx); cerr == nil && now != "" {
		keep = append(keep, now)
	} else if err == nil {
		err = cerr
	}
	var left []string
	if err == nil {
		left, err = b.pruneGenerations(ctx, ours, keep)
	}
	if err == nil {
		err = pruneExcept(ctx, b.st, b.prefix+"published", append(keep, left...)...)
	}
	if err != nil {
		b.h.logger.Warn("deleting old lazarus generations; they are kept for now", zap.Error(err))
	}
}

// pruneGenerations deletes the generations not in keep that were stored
// before ours (by the storage's own times), and returns those left.
func (b *builder) pruneGenerations(ctx context.Context, ours string, keep []string) ([]string, error) {
	dir := b.bundle.prefix + "generations"
	ref, ok, err := storedAt(ctx, b.st, dir+"/"+ours)
	if err != nil || !ok {
		return nil, fmt.Errorf("generation %s: when it was stored: %v", ours, err)
	}
	ids, err := b.bundle.generations(ctx)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, id := range ids {
		if slices.Contains(keep, id) {
			continue
		}
		at, ok, err := storedAt(ctx, b.st, dir+"/"+id)
		if err != nil {
			return nil, err
		}
		if !ok || at.After(ref) {
			left = append(left, id) // newer than ours, or being stored: another instance's
			continue
		}
		if err := b.st.Delete(ctx, dir+"/"+id); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return left, nil
}

// storedAt is when the storage stored the first value under dir that it
// finds (descending by first names), the storage's own time; false if
// there is none.
func storedAt(ctx context.Context, st certmagic.Storage, dir string) (time.Time, bool, error) {
	key := dir
	for range 8 {
		info, err := st.Stat(ctx, key)
		if errors.Is(err, fs.ErrNotExist) {
			return time.Time{}, false, nil
		}
		if err != nil {
			return time.Time{}, false, err
		}
		if info.IsTerminal {
			return info.Modified, true, nil
		}
		if m, err := st.Stat(ctx, key+"/manifest"); err == nil && m.IsTerminal {
			return m.Modified, true, nil
		}
		keys, err := st.List(ctx, key, false)
		if errors.Is(err, fs.ErrNotExist) || len(keys) == 0 {
			return time.Time{}, false, nil
		}
		if err != nil {
			return time.Time{}, false, err
		}
		key = keys[0]
	}
	return time.Time{}, false, nil
}

// maxRetained bounds the generations retained keeps.
const maxRetained = 64

// retained returns the generations to keep, from cur back along the
// previous generations. An instance serves a generation X at most
// switchLag after X's successor was published (then it has switched,
// crawlers or not), and meanwhile carries X's predecessor along. So the
// current generation and its previous one always stay, and each older one
// stays while the generation two after it was published less than
// switchLag ago. A generation with no publication time (built before
// they were noted) counts as just published.
func (b *builder) retained(ctx context.Context, cur string) ([]string, error) {
	keep := []string{cur}
	for len(keep) < maxRetained {
		prev, err := b.bundle.previous(ctx, keep[len(keep)-1])
		if err != nil || prev == "" || !b.st.Exists(ctx, b.bundle.prefix+"generations/"+prev+"/manifest") {
			return keep, err
		}
		if n := len(keep); n >= 2 && !b.recent(ctx, keep[n-2]) {
			return keep, nil
		}
		keep = append(keep, prev)
	}
	return keep, nil
}

// recent reports whether generation id was published less than
// switchLag ago, or its publication time is unknown.
func (b *builder) recent(ctx context.Context, id string) bool {
	v, err := loadLimited(ctx, b.st, b.prefix+"published/"+id, maxStampBytes)
	if err != nil {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(v)))
	return err != nil || b.h.now().Sub(t) < b.h.switchLag()
}
