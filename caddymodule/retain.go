package caddymodule

import (
	"context"
	"strings"
	"time"

	"go.uber.org/zap"
)

// publish makes generation id current, noting when.
func (b *builder) publish(ctx context.Context, id string) error {
	now := b.h.now().UTC().Format(time.RFC3339Nano) + "\n"
	if err := b.st.Store(ctx, b.prefix+"published/"+id, []byte(now)); err != nil {
		return err
	}
	return b.st.Store(ctx, b.bundle.prefix+"current", []byte(id+"\n"))
}

// prune deletes the generations (and their publication times) that no
// instance may still serve or carry along; on any doubt it keeps them.
func (b *builder) prune(ctx context.Context, cur string) {
	keep, err := b.retained(ctx, cur)
	if err == nil {
		err = pruneExcept(ctx, b.st, b.bundle.prefix+"generations", keep...)
	}
	if err == nil {
		err = pruneExcept(ctx, b.st, b.prefix+"published", keep...)
	}
	if err != nil {
		b.h.logger.Warn("deleting old lazarus generations; they are kept for now", zap.Error(err))
	}
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
	v, err := b.st.Load(ctx, b.prefix+"published/"+id)
	if err != nil {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(v)))
	return err != nil || b.h.now().Sub(t) < b.h.switchLag()
}
