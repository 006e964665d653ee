// Package odds is Lazarus's capture model: how the web's archives capture a
// site's pages, fitted per archive to the site's capture history, and the
// probability it gives that the archives hold enough blocks of a generation
// to rebuild it within a horizon. It is pure computation (no I/O, no clock)
// and deterministic: the same history gives the same numbers.
//
// # The model
//
// Archives capture sites in two ways (BRIEF §6): site sweeps (wide crawls,
// partner crawls, national libraries: frequent shallow, rare deep) and
// one-page captures of pages someone names (Save Page Now, outlinks). Per
// archive a:
//
//   - sweeps reaching link depth ≥ d come as a Poisson process of rate
//     λ_d per day, non-increasing in d; a sweep takes each page within its
//     reach with probability ρ, independently given the sweep;
//   - page u is also captured on its own at rate μ_u per day;
//   - a capture becomes visible (listed, replayable) after an ingest lag;
//   - a page larger than the archive's truncation limit, or one its
//     crawler may not capture (robots, noarchive), counts for nothing there.
//
// Archives are independent of each other. The sweep counts of each depth
// within the horizon are enumerated exactly (truncated Poisson, with the
// tail folded into its last term, which gives a lower value); given them,
// pages are captured independently and each stripe's shard count follows a
// capped Poisson-binomial law (BRIEF §5's DP). Stripes share pages, and
// "this stripe has k shards" is an increasing event in the page captures,
// so by the Harris–FKG inequality the product over stripes is a lower bound
// on their joint probability: Recoverable is never more confident than the
// model. Sweep-count combinations of probability below Epsilon are skipped
// and count as failures, another lower bound.
//
// # Fitting
//
// Fit reads an archive's captures of the site's pages. Sweeps are found as
// bursts against the background: captures are clustered by the archive's
// gap (a day for the Wayback Machine, a week for Common Crawl's monthly
// crawls), and a cluster is a sweep when it captured more distinct pages
// than the background rate of one-page captures makes likely (Poisson tail
// below 1e-3) — not merely "captures closer than 6 h", which chains
// isolated captures into hundreds of false sweeps. The background rate is
// re-estimated without the sweeps until it settles. A sweep's reach is the
// deepest page it took; ρ is the share of pages within reach it took.
// Every rate is a posterior mean under a gamma prior per archive (Prior),
// weighing as many days of observation as Prior.Weight, so a new site is
// judged by the published figures, not by "each page kept with
// probability 1/2", and a long history by itself.
//
// The priors cite: Ainsworth et al., JCDL 2011 (35–90% of URIs archived,
// 14.6–31.3% more than monthly); Alkwai et al., JCDL 2015 / TOIS 2017 (deep
// links poorly archived); seed 001 (median capture intervals 20–127 days);
// seed 004 §III–VII (new sites not captured in 90 days; −0.042 recovery per
// hop); Common Crawl's monthly crawls of ≈ 56 pages per host and its
// truncation at 1 MiB before February 2025, 5 MiB since.
package odds
