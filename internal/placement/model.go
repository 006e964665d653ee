package placement

import (
	"cmp"
	"math"
	"slices"
)

const (
	// DefaultTarget is the recoverability a plan aims for when
	// Options.Target is zero and Options.Redundancy does not fix the
	// parity: the probability, under the capture model, that archives
	// keep the manifest and k blocks of every stripe.
	DefaultTarget = 0.999

	// DefaultCapture is the probability that archives keep a page's
	// current version, for pages Options.Capture does not name: a coin
	// toss, for a site whose capture history is not known
	// (seed 001's median site is captured every few weeks).
	DefaultCapture = 0.5

	// RequestsTarget is the target of a plan made for capture requests
	// (see RequestedCapture): recoverable within their horizon, a day.
	RequestsTarget = 0.99
)

// The prior of a capture request's success before any is recorded: a
// coin toss, worth PriorWeight requests once some are (MeasuredSuccess).
const (
	PriorSuccess = 0.5
	PriorWeight  = 10
)

// MeasuredSuccess is the success of a capture request after sent
// requests of which taken were taken by the archive: their ratio pulled
// towards PriorSuccess by PriorWeight requests.
func MeasuredSuccess(taken, sent int) float64 {
	return (float64(taken) + PriorSuccess*PriorWeight) / float64(sent+PriorWeight)
}

// RequestedCapture is the probability that a page asked for up to
// attempts times, each request taken with probability success
// independently, is captured: 1 − (1 − success)^attempts.
func RequestedCapture(success float64, attempts int) float64 {
	return 1 - math.Pow(1-success, float64(attempts))
}

// capture is the model a target plan is made for: each page is kept by
// the archives with its own probability, independently of the others
// (BRIEF §5). Blocks of one stripe are on distinct pages, so a stripe's
// kept blocks follow a Poisson-binomial law.
type capture struct {
	p []float64 // per page index (input order: depth, then URL)
}

// failure returns the probability that fewer than k of the blocks whose
// keep probabilities are ps are kept: Σ_{c<k} P(count = c), summed from
// the small end so that failures far below 1e-16 keep their precision.
// dist is scratch of at least k entries.
func failure(ps []float64, k int, dist []float64) float64 {
	if k <= 0 {
		return 0
	}
	if len(ps) < k {
		return 1
	}
	dist = dist[:k] // dist[c] = P(count = c) for c < k; the rest is ≥ k
	clear(dist)
	dist[0] = 1
	for _, p := range ps {
		for c := k - 1; c >= 1; c-- {
			dist[c] = dist[c]*(1-p) + dist[c-1]*p
		}
		dist[0] *= 1 - p
	}
	var f float64
	for _, m := range dist {
		f += m
	}
	return min(1, max(0, f))
}

// tails holds, for the best pages (keep probability descending), the
// failure of a stripe of k data blocks spread over the first n of them:
// fail[n][k] for 1 ≤ k ≤ n ≤ width. Planning reads stripe widths off it.
type tails struct {
	fail [][]float64
}

// newTails computes the table for widths up to width over ps sorted
// descending: O(width²).
func newTails(ps []float64, width int) *tails {
	q := slices.Clone(ps)
	slices.SortFunc(q, func(a, b float64) int { return cmp.Compare(b, a) })
	width = min(width, len(q))
	t := &tails{fail: make([][]float64, width+1)}
	dist := make([]float64, width+1) // P(count = c) over the first n pages
	dist[0] = 1
	for n := 1; n <= width; n++ {
		p := q[n-1]
		for c := n; c >= 1; c-- {
			dist[c] = dist[c]*(1-p) + dist[c-1]*p
		}
		dist[0] *= 1 - p
		row := make([]float64, n+1) // row[k] = Σ_{c<k} dist[c]
		for k := 1; k <= n; k++ {
			row[k] = min(1, row[k-1]+dist[k-1])
		}
		t.fail[n] = row
	}
	return t
}

// widths gives the width a stripe needs.
type widths interface {
	// width returns the fewest pages n in [k, maxN] on which a stripe of
	// k data blocks, one of stripes stripes of blocks adding cost bytes to
	// a page, fails with probability at most f, and that failure; maxN,
	// its failure and false when none does.
	width(k, maxN int, f float64, stripes, cost int) (int, float64, bool)
}

// width is widths.width when every stripe can have the best pages.
func (t *tails) width(k, maxN int, f float64, _, _ int) (int, float64, bool) {
	maxN = min(maxN, len(t.fail)-1)
	if k > maxN {
		return maxN, 1, false
	}
	if t.fail[maxN][k] > f {
		return maxN, t.fail[maxN][k], false
	}
	lo, hi := k, maxN // fail[n][k] falls as n grows
	for lo < hi {
		mid := (lo + hi) / 2
		if t.fail[mid][k] <= f {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, t.fail[lo][k], true
}

// slots estimates widths when pages differ: stripes take pages in turns
// (placeStripes), the most kept first, each page offering room for
// min(stripes, free/cost) blocks of the segment; the pages a stripe gets
// at rank r are the slots [r·T, (r+1)·T) of that order, and a stripe gets
// about the middle one. The few most kept pages running out of room is
// then in the estimate, not a surprise once placed.
type slots struct {
	st    *state
	order []int32 // pages by keep probability, then free bytes, most first
}

func (st *state) slots() *slots {
	s := &slots{st: st}
	for i := range st.pages {
		s.order = append(s.order, int32(i))
	}
	slices.SortStableFunc(s.order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(st.in.capture[b], st.in.capture[a]), cmp.Compare(st.pages[b].free, st.pages[a].free))
	})
	return s
}

// probs returns the keep probability of the page a stripe gets at each
// rank, for at most maxN ranks.
func (s *slots) probs(stripes, cost, maxN int) []float64 {
	out := make([]float64, 0, maxN)
	next, pos := int64(stripes/2), int64(0) // the slot wanted next, the slots passed
	for _, p := range s.order {
		c := int64(min(stripes, s.st.pages[p].free/cost))
		for next < pos+c && len(out) < maxN {
			out = append(out, s.st.in.capture[p])
			next += int64(stripes)
		}
		if pos += c; len(out) == maxN {
			break
		}
	}
	return out
}

func (s *slots) width(k, maxN int, f float64, stripes, cost int) (int, float64, bool) {
	q := s.probs(stripes, cost, maxN)
	if len(q) < k {
		return len(q), 1, false
	}
	dist := make([]float64, k) // P(count = c) for c < k
	dist[0] = 1
	fail := 1.0
	for n, p := range q {
		for c := k - 1; c >= 1; c-- {
			dist[c] = dist[c]*(1-p) + dist[c-1]*p
		}
		dist[0] *= 1 - p
		if n+1 < k {
			continue
		}
		fail = 0
		for _, m := range dist {
			fail += m
		}
		if fail <= f {
			return n + 1, fail, true
		}
	}
	return len(q), fail, false
}

// stripeShare is the failure one of stripes stripes may have so that all
// of them together keep a failure of at most eps: 1 − (1 − eps)^(1/stripes).
func stripeShare(eps float64, stripes int64) float64 {
	return -math.Expm1(math.Log1p(-eps) / float64(stripes))
}

// allKept returns the log-probability that every stripe of fails is kept.
func logKept(fails ...float64) float64 {
	var l float64
	for _, f := range fails {
		l += math.Log1p(-min(f, 1))
	}
	return l
}
