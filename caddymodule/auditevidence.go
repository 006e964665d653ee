package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"
	"go.uber.org/zap"
)

// Rotation by evidence: with Audit, the previous generation rides along
// beside the current one until an audit shows the current one safe in the
// archives, or until MaxOverlap after the current one's time, whichever
// comes first (see Handler.rideEnd).
const (
	// DefaultMaxOverlap is how long, with Audit, the previous generation
	// rides along at most while no audit shows the current one safe.
	DefaultMaxOverlap = 90 * 24 * time.Hour
	// SafeProbability is the P_rec now, in the capture model's view, an
	// audit must give the current generation for it to count as safe.
	SafeProbability = 0.99
)

// proves reports whether s shows generation id safe in the archives, in
// the stricter of the two readings of "recoverable": the generation the
// audit judged newest is id, the archives hold enough of it to restore
// it now (it is the restore point), and the capture model gives it at
// least SafeProbability now (summaries stored before the model had one
// view name it "independent"). A summary whose model did not run proves
// nothing.
func (s *auditSummary) proves(id string) bool {
	p := max(s.Probability[status.ModelViewName], s.Probability["independent"])
	return id != "" && s.Newest == id && s.RestorePoint == id && p >= SafeProbability
}

// safeKey is where the time an audit first showed generation id safe is
// kept: lazarus/NAME/audit/safe/ID.
func (h *Handler) safeKey(id string) string { return h.storagePrefix() + "audit/safe/" + id }

// noteEvidence records, once per generation, when an audit first showed
// the generation it judged newest safe (s.proves): the summary's time.
// Every instance ends the previous generation's ride there and moves its
// pages' Last-Modified there, so they agree on bytes and validators; a
// later audit that finds less does not resume the ride.
func (a *auditor) noteEvidence(ctx context.Context, s *auditSummary) {
	if s == nil || !s.proves(s.Newest) {
		return
	}
	key := a.h.safeKey(s.Newest)
	if a.h.storage.Exists(ctx, key) {
		return
	}
	if err := a.h.storage.Store(ctx, key, []byte(s.Time.UTC().Format(time.RFC3339Nano)+"\n")); err != nil {
		a.h.logger.Warn("storing when the archives first held the current generation", zap.Error(err))
		return
	}
	a.h.logger.Info("the archives hold the current generation: the previous one stops riding along on the pages",
		zap.String("generation", s.Newest), zap.Time("since", s.Time))
}

// safeMark is when generation id was first shown safe by an audit.
type safeMark struct {
	id string
	at time.Time
}

// refreshSafe reads, with Audit, when the current generation g was first
// shown safe, while the previous generation rides beside it and that is
// not known yet; once known it stays. reload calls it every
// ReloadInterval, so instances learn it within one.
func (h *Handler) refreshSafe(g *generation) {
	if h.Audit == nil || g == nil {
		return
	}
	if s := h.safe.Load(); s != nil && s.id == g.id {
		return
	}
	if r := h.prev.Load(); r == nil || r.g.id != g.previous {
		return
	}
	v, err := loadLimited(h.ctx, h.storage, h.safeKey(g.id), maxStampBytes)
	if err != nil {
		return
	}
	at, err := parseSafeTime(v, h.now())
	if err != nil {
		h.logger.Warn("ignoring the stored time the archives first held the current generation", zap.String("key", h.safeKey(g.id)), zap.Error(err))
		return
	}
	h.safe.Store(&safeMark{id: g.id, at: at})
}

// parseSafeTime reads a stored time a generation was first shown safe
// (shared storage: checked): one RFC 3339 time, not after now but for
// maxSummarySkew, in UTC.
func parseSafeTime(v []byte, now time.Time) (time.Time, error) {
	if len(v) > 64 {
		return time.Time{}, errors.New("safe mark: too long")
	}
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(v)))
	switch {
	case err != nil:
		return time.Time{}, fmt.Errorf("safe mark: %w", err)
	case at.Year() < 2000 || at.After(now.Add(maxSummarySkew)):
		return time.Time{}, fmt.Errorf("safe mark: time %s out of range", at.UTC().Format(time.RFC3339))
	}
	return at.UTC(), nil
}

// maxOverlap is how long after the current generation's time the
// previous one rides along at most with Audit: MaxOverlap (default
// DefaultMaxOverlap), and never less than Overlap, so an audit that has
// not run never shortens the ride.
func (h *Handler) maxOverlap() time.Duration {
	m := time.Duration(h.MaxOverlap)
	if m <= 0 {
		m = DefaultMaxOverlap
	}
	return max(m, time.Duration(h.Overlap))
}

// rideEnd is when r stops riding beside g. Without Audit: Overlap after
// g's time. With Audit: when an audit first showed g safe (noteEvidence),
// or maxOverlap after g's time if earlier. In both cases, when r was
// dropped if that is earlier still. Every input is in shared storage or
// the generation, so every instance finds the same end.
func (h *Handler) rideEnd(r *riding, g *generation) time.Time {
	end := g.time.Add(time.Duration(h.Overlap))
	if h.Audit != nil {
		end = g.time.Add(h.maxOverlap())
		if s := h.safe.Load(); s != nil && s.id == g.id && s.at.Before(end) {
			end = s.at
		}
	}
	if !r.dropped.IsZero() && r.dropped.Before(end) {
		end = r.dropped
	}
	return end
}
