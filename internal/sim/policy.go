package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Policy is a way to spread a generation's blocks over the pages.
type Policy int

// The policies, all given the bytes the Lazarus plan adds.
const (
	// Lazarus is placement.Place's target plan, made with the capture
	// probabilities status would have learned by then.
	Lazarus Policy = iota
	// RoundRobin codes the segments like Lazarus (same k, n and block
	// size) and puts stripe after stripe on the pages in order (root,
	// then by depth), wrapping around; the manifest on as many pages as
	// Lazarus's, the first in order.
	RoundRobin
	// Random codes like Lazarus and puts each stripe's blocks on distinct
	// random pages, the manifest on as many random pages.
	Random
	// AllPages spreads the same bytes over every page: each stripe has a
	// block on every page (n = pages, at most 256), the block size and k
	// following from the bytes; the manifest as in RoundRobin.
	AllPages
	// LazarusRequests is placement.Place's target plan made for capture
	// requests, as inject makes it with a [capture] table: every page
	// captured within a day with placement.RequestedCapture of
	// Config.RequestSuccess and Config.RequestAttempts (at most 0.9),
	// target placement.RequestsTarget. Its own bytes, not Lazarus's.
	LazarusRequests
	numPolicies
)

// Policies lists every policy in report order.
func Policies() []Policy { return []Policy{Lazarus, RoundRobin, Random, AllPages, LazarusRequests} }

// String names the policy as the report does.
func (p Policy) String() string {
	switch p {
	case Lazarus:
		return "lazarus"
	case RoundRobin:
		return "round-robin"
	case Random:
		return "random"
	case AllPages:
		return "all-pages"
	case LazarusRequests:
		return "lazarus-requests"
	}
	return fmt.Sprintf("policy(%d)", int(p))
}

// pageCapacity is the bytes a plan may add to one simulated page: the
// injector's default page budget, injector.DefaultPageBudget (a cap, not
// a target).
const pageCapacity = 256 << 10

// carriersOf returns the site's pages as placement carriers.
func carriersOf(s *site) []placement.Carrier {
	cs := make([]placement.Carrier, len(s.pages))
	for u, p := range s.pages {
		cs[u] = placement.Carrier{URL: p.url, Depth: p.depth, Capacity: pageCapacity}
	}
	return cs
}

// lazarusLayout makes the target plan for the segments with the capture
// probabilities capture (nil: placement's default for every page).
func lazarusLayout(s *site, segs []segment, target float64, capture map[string]float64) (*layout, error) {
	ps := make([]placement.Segment, len(segs))
	for i, sg := range segs {
		ps[i] = placement.Segment{Name: sg.name, Length: sg.length}
	}
	plan, err := placement.Place(ps, carriersOf(s), placement.Options{ManifestBytes: manifestBytes, Target: target, NoSpare: true, Capture: capture})
	if err != nil {
		return nil, fmt.Errorf("lazarus plan: %w", err)
	}
	urls := make([]string, len(s.pages))
	for u, p := range s.pages {
		urls[u] = p.url
	}
	l, err := fromPlan(plan, segs, urls)
	if err != nil {
		return nil, err
	}
	l.planned = plan.Recoverability
	return l, nil
}

// requestsLayout makes the plan for capture requests (LazarusRequests):
// every page captured with placement.RequestedCapture of c's request
// success and attempts, at most maxPlannedCapture, target
// placement.RequestsTarget.
func requestsLayout(c *Config, s *site, segs []segment) (*layout, error) {
	q := min(placement.RequestedCapture(c.RequestSuccess, c.RequestAttempts), maxPlannedCapture)
	capture := make(map[string]float64, len(s.pages))
	for _, p := range s.pages {
		capture[p.url] = q
	}
	return lazarusLayout(s, segs, placement.RequestsTarget, capture)
}

// maxPlannedCapture is the most a plan counts on a page being captured
// (injector.MaxCapture).
const maxPlannedCapture = 0.9

// roundRobinLayout codes like ref and deals the blocks to the pages in
// order, stripe after stripe, wrapping around (a stripe's blocks land on
// distinct pages as long as it is not wider than the site).
func roundRobinLayout(ref *layout) *layout {
	n := len(ref.pages)
	l := newLayout(ref.segs, ref.params, n)
	for u := range ref.manifests() {
		l.putManifest(u % n)
	}
	next := 0
	for i, p := range ref.params {
		for j := range p.Stripes() {
			for sh := range p.Shards() {
				l.put(next%n, i, j, sh)
				next++
			}
		}
	}
	return l
}

// randomLayout codes like ref and puts each stripe's blocks on distinct
// pages drawn at random among those with room left (pageCapacity; pages
// without room only when too few have it), the manifest copies on random
// distinct pages.
func randomLayout(ref *layout, rng *rand.Rand) *layout {
	n := len(ref.pages)
	l := newLayout(ref.segs, ref.params, n)
	for _, u := range rng.Perm(n)[:min(n, ref.manifests())] {
		l.putManifest(u)
	}
	for i, p := range ref.params {
		cost := l.blockCost(i)
		for j := range p.Stripes() {
			order := rng.Perm(n)
			slices.SortStableFunc(order, func(a, b int) int {
				return cmp.Compare(roomless(l, a, cost), roomless(l, b, cost))
			})
			for sh, u := range order[:p.Shards()] {
				l.put(u, i, j, sh)
			}
		}
	}
	return l
}

// roomless is 1 when page u has no room left for a block of cost bytes,
// else 0.
func roomless(l *layout, u, cost int) int {
	if l.bytes[u]+cost > pageCapacity {
		return 1
	}
	return 0
}
