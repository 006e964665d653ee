package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"go.uber.org/zap"
)

// The generation state: with Audit, the module records what became of
// each generation it serves, as `lazarus inject` and `lazarus capture`
// do in archive-state.json (internal/genstate, the same format), in
// storage at lazarus/NAME/archive-state, shared by every instance:
// published (when an instance first loaded it, or when the builder
// published it), requested (what Save Page Now was asked, sent and
// taken, by the capture requests), confirmed (when an audit first found
// it recoverable from the archives combined, and each archive holding
// it on its own). Builds plan for the capture requests on the requests
// recorded there (builder.planRequests); the served generation's state
// is exported as metrics and logged when it changes.

// maxArchiveState bounds the record read back (genstate keeps at most
// genstate.MaxGenerations, a few KiB).
const maxArchiveState = 1 << 20

func (h *Handler) archiveStateKey() string { return h.storagePrefix() + "archive-state" }

// loadArchiveState reads the stored record; none stored is an empty one.
func (h *Handler) loadArchiveState(ctx context.Context) (*genstate.Record, error) {
	v, err := loadLimited(ctx, h.storage, h.archiveStateKey(), maxArchiveState)
	if errors.Is(err, fs.ErrNotExist) {
		return &genstate.Record{Version: genstate.Version, Generations: []genstate.Generation{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return genstate.Parse(v, h.archiveStateKey())
}

// updateArchiveState lets change modify the stored record under the
// storage lock lazarus/NAME/archive-state (instances and the audit, the
// capture requests and switches of one instance update it), stores it,
// logs the generations whose state changed and exports the served
// generation's. A damaged record is replaced, with a warning; one of a
// newer version is left alone (an error).
func (h *Handler) updateArchiveState(ctx context.Context, change func(*genstate.Record)) error {
	lock := h.archiveStateKey()
	if err := h.storage.Lock(ctx, lock); err != nil {
		return fmt.Errorf("archive state lock: %w", err)
	}
	defer h.storage.Unlock(context.WithoutCancel(ctx), lock)
	r, err := h.loadArchiveState(ctx)
	if errors.Is(err, genstate.ErrDamaged) {
		h.logger.Warn("replacing the damaged generation state; the capture requests recorded so far are forgotten", zap.Error(err))
		r, err = &genstate.Record{Version: genstate.Version, Generations: []genstate.Generation{}}, nil
	}
	if err != nil {
		return err
	}
	before := summarizeStates(r)
	change(r)
	v, err := r.Marshal()
	if err != nil {
		return err
	}
	if err := h.storage.Store(ctx, h.archiveStateKey(), v); err != nil {
		return fmt.Errorf("storing the generation state: %w", err)
	}
	h.logStateChanges(before, r)
	h.exportState(r)
	return nil
}

// noteArchiveState is updateArchiveState that logs a failure as a
// warning: the record serves metrics and plans, never pages.
func (h *Handler) noteArchiveState(ctx context.Context, change func(*genstate.Record)) {
	if err := h.updateArchiveState(ctx, change); err != nil && ctx.Err() == nil {
		h.logger.Warn("recording the generation state", zap.Error(err))
	}
}

// notePublished records generation g as published, when it first is: at
// the builder's publication time if it built g, else now (the first
// instance to load it). Off the request path: switches call it through
// auditor.loaded.
func (h *Handler) notePublished(ctx context.Context, g *generation) {
	at := h.now()
	if v, err := loadLimited(ctx, h.storage, h.storagePrefix()+"published/"+g.id, maxStampBytes); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(v))); err == nil && !t.After(at) {
			at = t
		}
	}
	h.noteArchiveState(ctx, func(r *genstate.Record) { r.Ensure(g.id, at) })
}

// noteAudit records what a successful audit at at found.
func (h *Handler) noteAudit(ctx context.Context, rep *status.Report, at time.Time) {
	h.noteArchiveState(ctx, func(r *genstate.Record) { r.ObserveAudit(rep, at) })
}

// noteCaptureRun records what a capture run learnt: the live site
// serving the generation, the requests to each archive, its last audit
// (when it could read the archives), and a refused key.
func (h *Handler) noteCaptureRun(ctx context.Context, rep *capture.Report, runErr error) {
	now := h.now()
	h.noteArchiveState(ctx, func(r *genstate.Record) {
		if rep != nil && rep.Generation != "" {
			if !rep.Live.IsZero() {
				r.ObserveLive(rep.Generation, rep.Time, rep.Live)
			}
			for _, q := range rep.Requests {
				r.ObserveRequests(rep.Generation, rep.Time, genstate.Request{Archive: q.Archive, Keyed: q.Keyed, First: q.First, Last: q.Last,
					Sent: q.Sent, Taken: q.Taken})
			}
			if s := rep.Status; s != nil && s.Cause == nil {
				r.ObserveAudit(s, now)
			}
		}
		if errors.Is(runErr, spn.ErrRefused) {
			r.RefusedKey("wayback", now)
		}
	})
}

// stateSummary is what is logged of a generation's state.
type stateSummary struct {
	state       string
	requested   int // requests sent, every archive
	confirmedIn string
}

func summarizeStates(r *genstate.Record) map[string]stateSummary {
	out := make(map[string]stateSummary, len(r.Generations))
	for _, g := range r.Generations {
		out[g.ID] = stateSummary{state: g.State(), requested: sentTo(g), confirmedIn: strings.Join(heldBy(g), ",")}
	}
	return out
}

func sentTo(g genstate.Generation) (n int) {
	for _, q := range g.Requested {
		n += q.Sent
	}
	return n
}

func heldBy(g genstate.Generation) []string {
	var out []string
	for _, c := range g.ConfirmedIn {
		out = append(out, c.Archive)
	}
	slices.Sort(out)
	return out
}

// logStateChanges logs, at info level, each generation whose state,
// requests or archives holding it changed.
func (h *Handler) logStateChanges(before map[string]stateSummary, r *genstate.Record) {
	for _, g := range r.Generations {
		now := stateSummary{state: g.State(), requested: sentTo(g), confirmedIn: strings.Join(heldBy(g), ",")}
		if was, ok := before[g.ID]; ok && was == now {
			continue
		}
		fields := []zap.Field{zap.String("generation", g.ID), zap.String("state", now.state), zap.Time("published", g.Published)}
		for _, q := range g.Requested {
			fields = append(fields, zap.Time("requested_"+q.Archive, q.First), zap.Int("sent_"+q.Archive, q.Sent), zap.Int("taken_"+q.Archive, q.Taken))
		}
		if !g.Confirmed.IsZero() {
			fields = append(fields, zap.Time("confirmed", g.Confirmed))
		}
		for _, c := range g.ConfirmedIn {
			fields = append(fields, zap.Time("confirmed_"+c.Archive, c.Seen))
		}
		h.logger.Info("lazarus generation state", fields...)
	}
}

// exportState sets the state gauges of the generation served, or of the
// newest recorded when none is loaded yet: generation_state{state} is 1
// for its state and 0 for the others; generation_state_timestamp_seconds
// {state, archive} the times it reached each, archive "" for published
// and for confirmed by the archives combined.
func (h *Handler) exportState(r *genstate.Record) {
	var g *genstate.Generation
	if cur := h.gen.Load(); cur != nil {
		g = r.Find(cur.id)
	} else if len(r.Generations) > 0 {
		g = &r.Generations[0]
	}
	if g == nil {
		return
	}
	m := h.metrics
	for _, s := range []string{genstate.StatePublished, genstate.StateRequested, genstate.StateConfirmed} {
		v := 0.0
		if s == g.State() {
			v = 1
		}
		m.genState.WithLabelValues(h.Name, s).Set(v)
	}
	m.genStateTime.DeletePartialMatch(map[string]string{"site": h.Name})
	set := func(state, archive string, t time.Time) {
		if !t.IsZero() {
			m.genStateTime.WithLabelValues(h.Name, state, archive).Set(float64(t.UnixNano()) / 1e9)
		}
	}
	set(genstate.StatePublished, "", g.Published)
	for _, q := range g.Requested {
		if q.Sent > 0 {
			set(genstate.StateRequested, q.Archive, q.First)
		}
	}
	set(genstate.StateConfirmed, "", g.Confirmed)
	for _, c := range g.ConfirmedIn {
		set(genstate.StateConfirmed, c.Archive, c.Seen)
	}
}
