package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// measureHorizon is how long after its publication a generation's time
// to recoverable is looked for; past it, the time is censored.
const measureHorizon = 72 * time.Hour

// requestsResult is one world's outcome in the requests mode.
type requestsResult struct {
	Kind        string           `json:"kind"`
	World       int              `json:"world"`
	Generations []requestOutcome `json:"generations"`
}

// requestOutcome is what became of one generation published for capture
// requests.
type requestOutcome struct {
	Generation string  `json:"generation"`
	Day        float64 `json:"day"` // days after the world's first generation
	// RestorePoint is what the daily check before the inject found the
	// archives restore (make-before-break keeps it on the pages), "" for
	// the first generation or when they restore none.
	RestorePoint string   `json:"restore_point,omitempty"`
	Kept         []string `json:"kept,omitempty"` // earlier generations the pages still carry blocks of
	// What inject planned: carrier pages, the loss of how many of them
	// the generation survives, and its planner's figure within a day.
	Carriers       int     `json:"carriers"`
	Survives       int     `json:"survives_loss_of"`
	Recoverability float64 `json:"recoverability"`
	Sent           int     `json:"requests_sent"`
	Taken          int     `json:"requests_taken"`
	// WithinDay reports whether the real recover, on what the archives
	// list a day after the publication, restored the generation byte for
	// byte.
	WithinDay bool `json:"recoverable_within_day"`
	// Hours is the time from the publication to the first listing after
	// which the real recover restores the generation byte for byte; −1
	// when that is not within measureHorizon.
	Hours float64 `json:"hours_to_recoverable"`
	// The bytes: the generation's ciphertext, what its own blocks and
	// manifest add to the pages, and every Lazarus byte on the pages
	// (earlier generations kept beside it included).
	Ciphertext int64 `json:"ciphertext_bytes"`
	Own        int64 `json:"own_bytes"`
	OnPages    int64 `json:"page_bytes"`
	// Confirmed is the hours from the publication to the nightly audit
	// that found it the restore point (−1: none within measureHorizon);
	// Settled every Lazarus byte on the pages after that night's inject
	// (0 if none).
	Confirmed float64 `json:"confirmed_hours"`
	Settled   int64   `json:"settled_page_bytes,omitempty"`
}

// runRequestsWorld builds world number i of kind k as runWorld does (the
// same draws in the same order, so the same site, server side and
// archive mechanisms) and publishes each generation with the real
// injector planning for capture requests q, make-before-break kept as
// inject keeps it once lazarus capture has audited the archives; after
// each inject the requests are replayed (requests.go) into the world's
// Wayback Machine (one holding the requests alone when the kind has
// none). For each generation it measures whether the real recover
// restores it exactly from what the archives list a day later, the time
// until it first does, and the bytes on the pages.
func runRequestsWorld(ctx context.Context, k kind, ki, i int, q requestPlan, e worldEnv) (requestsResult, error) {
	rng := rand.New(rand.NewPCG(e.seed, uint64(ki)<<32|uint64(i)))
	asks := rand.New(rand.NewPCG(e.seed, 1<<63|uint64(ki)<<32|uint64(i)))
	res := requestsResult{Kind: k.Name, World: i}
	st, ss, t0, launch, at := drawWorld(rng, k)
	end := t0.Add(days(nowDay) + horizons[len(horizons)-1] + time.Hour)

	w, err := newWorldDir(e.tmp)
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(w.root)
	if err := st.write(w.site, rng); err != nil {
		return res, err
	}
	versions := []map[string][]byte{ss.files()}
	for range at[1:] {
		ss.change(rng)
		versions = append(versions, ss.files())
	}
	srv := served{}
	if err := srv.snapshot(st, w.site, launch); err != nil {
		return res, err
	}
	// The archives' mechanisms are drawn over the pages as launched:
	// which page they fetch when depends on the links served, which
	// inject does not change (checked below), not on the blocks; what
	// each capture holds is read from what was served then (listed).
	archives := k.Archives(rng, st, launch, t0)
	caps := make([][]capture, len(archives))
	for j, a := range archives {
		caps[j] = a.captures(rng, srv, launch, end)
	}
	wb := slices.IndexFunc(archives, func(a archive) bool { return a.Protocol == "wayback" })
	if wb < 0 {
		archives, caps, wb = append(archives, archive{Protocol: "wayback"}), append(caps, nil), len(archives)
	}
	ww := requestsWorld{env: e, w: w, archives: archives, caps: caps, srv: srv}

	restorePoint := ""
	for j, t := range at {
		if j > 0 {
			// lazarus capture's daily audit, the last before this inject.
			check := at[j-1].Add(day * time.Duration(t.Sub(at[j-1])/day))
			if restorePoint, err = ww.restorePoint(ctx, check); err != nil {
				return res, err
			}
		}
		if err := writeServerSide(w.src, versions[j]); err != nil {
			return res, err
		}
		plan := func(rp string) func(*injector.Options) {
			return func(o *injector.Options) {
				o.Requests, o.Target = q.options(), injector.DefaultRequestsTarget
				if j > 0 || rp != "" {
					o.Archived = &injector.Archived{RestorePoint: rp}
				}
			}
		}
		g, rep, err := injectAt(ctx, w, st, srv, t, e.keys.Server, plan(restorePoint))
		if err != nil {
			return res, err
		}
		g.Files = versions[j]
		if err := srv.sameLinks(); err != nil {
			return res, err
		}
		carriers := requestOrder(rep)
		log := q.captures(asks, srv, carriers, t)
		ww.caps[wb] = append(ww.caps[wb], log.Captures...)
		out := requestOutcome{Generation: g.ID, Day: t.Sub(at[0]).Hours() / 24, Carriers: len(carriers),
			Recoverability: rep.Recoverability, Sent: log.Sent, Taken: log.Taken, Ciphertext: ciphertextOf(rep), Confirmed: -1}
		if j > 0 {
			out.RestorePoint = restorePoint
		}
		if rep.Outlook != nil {
			out.Survives = rep.Outlook.Survives
		}
		for _, kg := range rep.Kept {
			if kg.Carried > 0 {
				out.Kept = append(out.Kept, kg.Generation)
			}
		}
		if out.Own, out.OnPages, err = pageBytes(st, w.site, srv, g.ID); err != nil {
			return res, err
		}
		// The nightly runs after it, within measureHorizon: capture's
		// audit, inject (dropping the generations before it once it is
		// confirmed), and, while it is not, capture asking again for
		// the carrier pages no capture of has been listed since.
		for night := day; night <= measureHorizon; night += day {
			tn := t.Add(night)
			rp, err := ww.restorePoint(ctx, tn)
			if err != nil {
				return res, err
			}
			_, nrep, err := injectAt(ctx, w, st, srv, tn, e.keys.Server, plan(rp))
			if err != nil {
				return res, err
			}
			if nrep.Generation != g.ID {
				return res, fmt.Errorf("the nightly inject %s after generation %s made generation %s", night, g.ID, nrep.Generation)
			}
			if rp == g.ID {
				out.Confirmed = night.Hours()
				if _, out.Settled, err = pageBytes(st, w.site, srv, g.ID); err != nil {
					return res, err
				}
				break
			}
			again := q.captures(asks, srv, ww.uncaptured(carriers, t, tn), tn)
			ww.caps[wb] = append(ww.caps[wb], again.Captures...)
			out.Sent, out.Taken = out.Sent+again.Sent, out.Taken+again.Taken
		}
		if out.WithinDay, out.Hours, err = ww.timeToRecoverable(ctx, g); err != nil {
			return res, err
		}
		res.Generations = append(res.Generations, out)
	}
	return res, nil
}

// requestsWorld is a requests-mode world's archives while it runs.
type requestsWorld struct {
	env      worldEnv
	w        *worldDir
	archives []archive
	caps     [][]capture
	srv      served
}

// serve starts the world's loopback archives holding what they list by
// t, each capture holding what the site served when it was made (cut at
// its truncation limit).
func (ww *requestsWorld) serve(t time.Time) ([]source.Source, func(), error) {
	held := make([][]capture, len(ww.caps))
	for j, cs := range ww.caps {
		for _, c := range cs {
			if c.Visible.After(t) {
				continue
			}
			c.Body = ww.srv.at(c.URL, c.Time)
			if c.Limit > 0 && len(c.Body) > c.Limit {
				c.Body = c.Body[:c.Limit]
			}
			held[j] = append(held[j], c)
		}
	}
	return serveAll(ww.archives, held, t, ww.env.client)
}

// recoverable reports whether the real recover, on what the archives
// list by t, restores generation g byte for byte.
func (ww *requestsWorld) recoverable(ctx context.Context, g generation, t time.Time) (bool, error) {
	srcs, stop, err := ww.serve(t)
	if err != nil {
		return false, err
	}
	defer stop()
	ok, _, err := restore(ctx, srcs, ww.env.keys.Owner, filepath.Join(ww.w.root, "out"), ww.w.root, g)
	return ok, err
}

// restorePoint is the generation the real recover restores whole from
// what the archives list by t, "" if none: what lazarus capture's audit
// records as the restore point.
func (ww *requestsWorld) restorePoint(ctx context.Context, t time.Time) (string, error) {
	srcs, stop, err := ww.serve(t)
	if err != nil {
		return "", err
	}
	defer stop()
	out := filepath.Join(ww.w.root, "out")
	defer os.RemoveAll(out)
	return restoreInto(ctx, srcs, ww.env.keys.Owner, out, ww.w.root)
}

// uncaptured returns the pages of pages (in their order) of which no
// capture made after since is listed by t.
func (ww *requestsWorld) uncaptured(pages []string, since, t time.Time) []string {
	got := map[string]bool{}
	for _, cs := range ww.caps {
		for _, c := range cs {
			if c.Time.After(since) && !c.Visible.After(t) {
				got[c.URL] = true
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(pages), func(u string) bool { return got[u] })
}

// timeToRecoverable reports whether generation g is recoverable a day
// after its publication, and the hours until it first is (−1 if not
// within measureHorizon): the earliest listing time of a capture after
// which the real recover restores it, found by bisection (more listed
// captures never make a generation unrecoverable before the next is
// published).
func (ww *requestsWorld) timeToRecoverable(ctx context.Context, g generation) (bool, float64, error) {
	var listed []time.Time
	for _, cs := range ww.caps {
		for _, c := range cs {
			if c.Visible.After(g.At) && !c.Visible.After(g.At.Add(measureHorizon)) {
				listed = append(listed, c.Visible)
			}
		}
	}
	slices.SortFunc(listed, func(a, b time.Time) int { return a.Compare(b) })
	listed = slices.Compact(listed)
	dayOK, err := ww.recoverable(ctx, g, g.At.Add(day))
	if err != nil {
		return false, 0, err
	}
	// The first listing after which it is recoverable lies in
	// listed[lo:hi], hi being known recoverable.
	split, _ := slices.BinarySearchFunc(listed, g.At.Add(day), func(a, b time.Time) int {
		if a.After(b) {
			return 1
		}
		return -1
	})
	lo, hi := 0, split
	if !dayOK {
		ok, err := ww.recoverable(ctx, g, g.At.Add(measureHorizon))
		if err != nil || !ok {
			return false, -1, err
		}
		lo, hi = split, len(listed)
	}
	if hi == 0 {
		return dayOK, 0, nil // recoverable before any capture made after it was listed
	}
	for lo < hi-1 {
		mid := (lo + hi - 1) / 2
		ok, err := ww.recoverable(ctx, g, listed[mid])
		if err != nil {
			return false, 0, err
		}
		if ok {
			hi = mid + 1
		} else {
			lo = mid + 1
		}
	}
	return dayOK, listed[hi-1].Sub(g.At).Hours(), nil
}
