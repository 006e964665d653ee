// Package sim is the seeded discrete-event simulator behind
// `go run ./bench/sim`: a site of Config.Pages pages whose
// server side changes every Config.ChangeEvery days, each change making a
// new generation that a placement policy spreads over the pages, and an
// archive that captures the pages at their own rates and in whole-site
// sweeps. It measures, per policy, how soon and how likely each generation
// becomes recoverable from the archive's captures, and how old the newest
// recoverable generation is over time, with capture requests (Save Page
// Now) on and off and with make-before-break or break-before-make
// rotation. It is pure computation: no I/O, no clock, deterministic for a
// given Config.Seed.
//
// Where things live:
//
//   - config.go: the tunables and their defaults.
//   - site.go: the site: page depths and capture rates (log-normal around
//     seed 001's intervals, slower with depth), sweeps.
//   - timeline.go: the archive's own captures of the pages, drawn once per
//     run and shared by every policy (common random numbers).
//   - estimate.go: what status would learn from those captures: per-page
//     capture probabilities for the lazarus plan (the capture model, internal/odds, fitted as status fits it).
//   - layout.go: which page carries which block and manifest copy.
//   - policy.go, allpages.go: the four placement policies at equal bytes.
//   - requests.go: which pages capture requests ask for, in order of
//     marginal value.
//   - ledger.go: the event-driven accounting of captures, recoverability
//     and rotation for one run of one policy.
//   - tally.go: the figures aggregated over runs; plans.go: what the
//     lazarus plans expected and cost, generation by generation.
//   - run.go: Run, the runs in parallel.
//   - report.go: the report, as a text table and as JSON.
//
// # The model
//
// Time is in days; the first generation is published at day 0 and a new
// one every ChangeEvery days before Days; captures are simulated until
// Days + 30 so that every generation is followed for 30 days. Page u is
// captured by the archive at rate κ_u: a Poisson process of its own plus
// sweeps (a Poisson process of rate 1/SweepEvery; a sweep captures u with
// probability q_u and does so within a day), with a share SweepShare of
// κ_u coming from sweeps. The archive keeps every capture, and a capture
// stores every block the page carries at that instant: the newest
// generation's and, under make-before-break, older ones still kept.
//
// A generation is recoverable at t when, by t, some capture stored its
// manifest and, for each stripe, captures stored K distinct shards (on
// pages whose captured version carried that generation). Once recoverable
// it stays so: archives do not forget.
//
// Rotation. Break-before-make drops a generation's blocks from the pages
// when the next one is published. Make-before-break keeps them until a
// newer generation is recoverable, as status sees it at its next check
// (every Check days; status reads the archives' copies, and the model counts
// blocks found there as certain, so its estimate reaches 99% exactly when
// they hold enough), or until MaxAge days after it was replaced.
//
// Capture requests. When a generation is published the site asks Save
// Page Now for the manifest pages, then for carriers in order of marginal
// value until every stripe has K + margin requested blocks; a day later,
// if the generation is not recoverable, for the remaining carriers. Never
// more requests than carrier pages. Each request succeeds with probability
// RequestSuccess, within an exponential delay of mean RequestDelay.
package sim
