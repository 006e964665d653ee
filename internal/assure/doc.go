// Package assure estimates whether the web's archives hold, or will soon
// hold, enough blocks of each stripe of a generation for recover to rebuild
// it: the model layer behind `lazarus status`. It is pure computation: no
// I/O, no network, no clock (the caller passes Site.Now), deterministic for
// a given Options.Seed.
//
// Where things live:
//
//   - rate.go: days as the unit of rates; P(captured within D) =
//     1 − e^(−κ·D) (BRIEF §5; archives combine in model.go's pageP).
//   - pool.go: the fixed prior of capture rates, and pages with few
//     captures borrowing a rate from the pages at the same depth
//     (gamma–Poisson empirical Bayes shrinkage on top of the fixed prior).
//   - evidence.go: what the estimates rest on (exposures, sweeps seen,
//     whether the prior dominates).
//   - change.go, brent.go: the change-rate estimator of seed 001 (eq. 5,
//     solved with Brent's method; m = 0 and m = n cases) and the
//     probability that an archive that ignores comment-only changes has
//     stored a page's newest blocks.
//   - sweep.go: captures of one archive clustered into sweeps.
//   - dp.go: the capped Poisson-binomial DP, S ← min(r, S + c_u).
//   - stripe.go: P_rec of one stripe, exact even when blocks have replicas
//     (up to MaxHubs pages carrying several of its shards per group).
//   - input.go, options.go: what the caller knows; tunables with defaults.
//   - model.go: capture rates (with depth pooling), change rates and sweep
//     rates estimated from a Site.
//   - index.go: the block index: which live pages carry which shard of
//     which stripe, and which shards are already archived (certain).
//   - simulate.go, sweepsim.go: the seeded Monte Carlo over the times pages
//     are stored, in both views; sweepsim.go draws an archive's sweeps.
//   - project.go, assess.go: P_rec of stripes, segments and the generation
//     at Options.At, and the time until it reaches Options.Target (exact
//     where the stripes are independent, else from the simulation).
//
// # The model
//
// Page u is captured by archive a as a Poisson process of rate κ_{u,a}
// (per day), estimated from the captures in the last Options.Window (see
// "Capture rates and the prior" below). A
// block is available once any page carrying it has been captured after it
// started carrying it; blocks the caller has already found in an archive
// are certain. A stripe is recoverable when K distinct shards are
// available; a segment when all its stripes are; the generation when all
// its data segments are (the listing segment is reported on its own).
// Times count from Site.Now; the future is memoryless, so how long blocks
// have already been served does not matter once the caller has said which
// blocks are archived.
//
// Every number comes in two views:
//
//   - Independent: pages (and archives) are captured independently. This is
//     the textbook model of BRIEF §5 and can be computed exactly for one
//     stripe. It is an optimistic assumption: archives crawl a site in
//     sweeps, so captures of its pages are positively correlated, which
//     widens the spread of the number of blocks captured and lowers P_rec
//     wherever P_rec is high — the region where status makes decisions.
//   - Sweep: the realistic view. Archive a visits the site in sweeps, a
//     Poisson process of rate Λ_a estimated from capture times clustered
//     into sweeps (FindSweeps); each sweep captures page u with probability
//     q_{u,a} = κ_{u,a}/Λ_a, independently of other pages given the sweep
//     (Λ_a is raised to the largest κ_{u,a} when a pooled rate exceeds it).
//     Each page keeps the same marginal capture rate as in the independent
//     view, so the two views differ only by the correlation that sweeps
//     introduce, and their gap measures how much independence flatters.
//
// # Capture rates and the prior
//
// κ̂ = N/w is the maximum-likelihood rate, and it is absurd when the
// observation window w is short: a site crawled once a minute after its
// pages went up would read as captured once a minute, certain to be
// recoverable within the hour, although nothing may ever come back. Depth
// pooling alone does not help, since every page of the pool has the same
// tiny exposure. So every rate is a posterior mean under a fixed, weak
// gamma prior: mean one capture per Options.PriorInterval (127 days: the
// slow end of seed 001's median intervals between Internet Archive
// captures of scholars' homepages, 20–127 days for 80% of them), weighing
// as much as Options.PriorDays (30 days) of observation. A page with N
// captures in w days gets
//
//	κ̃ = (N + α₀)/(w + β₀),   β₀ = PriorDays,   α₀ = β₀/PriorInterval,
//
// which is the prior's 1/127 when w ≪ β₀, (1 + α₀)/β₀ ≈ 1/24 per day for
// one capture in a minute, and N/w as w grows (the prior keeps β₀/(w + β₀)
// of the weight: a quarter after the default 90-day window, 8% after a
// year). Pages with fewer than Options.MinCaptures captures take their
// depth pool's estimate, whose prior is fitted to the pool on top of the
// fixed one: each page brings α₀ captures in β₀ days, and the pool's
// weight is capped by its page-days (FitPrior). Sweep rates use the same
// prior: S sweeps in the longest exposure T give Λ = (S + α₀)/(T + β₀), so
// one burst of captures says "not never", not "every few minutes".
// Options.NoPrior restores raw rates (as BRIEF §5 takes them). The rates
// are plugged into the model as point estimates; the posterior's spread
// is not propagated (it would lower P_rec further where the prior
// dominates).
//
// Assessment.Evidence says what the figures rest on: the shortest and
// median page exposure, the sweeps seen per archive, and PriorDominated
// when the median exposure is below PriorDays. Status should then say
// "too little capture history to estimate: figures mostly reflect the
// prior", and prefer the Sweep view: one archive visit captured every page
// together, so pages are not independent evidence.
//
// Exactness: a stripe's independent P_rec is exact (stripe.go); a segment's
// or the generation's is the exact product over stripes when no page that
// can still contribute carries blocks of two of its stripes, and otherwise
// (the usual case: placement puts blocks of many stripes on each page) a
// seeded Monte Carlo over page capture times with Options.Samples trials,
// reported with its standard error. The sweep view is always Monte Carlo.
// One simulation gives the whole curve over time (it samples capture
// times, not outcomes at one time), so P_rec at several times and the time
// to reach the target come from the same trials and are mutually
// consistent.
//
// # How status should use it
//
// Build a Site from the newest generation's manifest (segments, carriers),
// the archives' capture listings of the carrier URLs (with their depth, and
// digests when known) and the blocks already found in archived copies, call
// Assess, and show per segment and for the generation both views at now,
// +7 d and +30 d, the time to reach the target, and which stripes are
// weakest. Say "never" when Reached is false. Listings used for change
// rates must not be collapsed by digest (a collapsed CDX listing drops
// unchanged captures and makes every interval look changed).
//
// Archives named in Options.ChangeAware keep a new copy of a page only
// after a visible change (seed 004: engines ignored comment-only changes
// for weeks; seed 003: importance-aware archives score them 0). For those,
// a page's newest blocks are stored only at the first capture after the
// page's next visible change, so the page's change rate λ (eq. 5, from
// digest changes between consecutive captures, excluding intervals that
// contain a block rotation) enters the probability (pHypo): a
// page that changes often is re-stored often, a page that never changes
// visibly never is. Pages with Page.Notice (the injector's visible "updated"
// line) change visibly whenever their blocks do, so every archive treats
// them as digest-based. Status should hint to enable the notice when
// change-aware archives are expected to matter.
package assure
