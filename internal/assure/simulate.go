package assure

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// view selects one of the two models of how archives capture pages.
type view int

const (
	independentModel view = iota // pages captured independently
	sweepModel                   // archives capture pages in shared sweeps
)

// simChunk is the number of trials simulated with one random stream; the
// streams depend only on Options.Seed, the view and the chunk's index, so
// results do not depend on how many goroutines run them.
const simChunk = 256

// maxSweeps bounds the sweeps one archive is simulated to make within the
// horizon. An archive that sweeps more often is simulated with batches of
// consecutive sweeps (see newSweepPlan).
const maxSweeps = 1 << 15

// simResult is what one Monte Carlo run over capture times yields. Times
// are in days from Site.Now, +Inf for "not within the horizon".
type simResult struct {
	samples    int
	stripeHits [][]int     // [stripe][j]: trials with the stripe rebuilt by at[j]
	segTimes   [][]float64 // [segment][trial]: when the segment is rebuilt
	genTimes   []float64   // [trial]: when every data segment is rebuilt
}

// simulate runs Options.Samples trials of the view. Each trial draws the
// time each active page's blocks are first stored (in any archive), then
// the time each stripe has its k-th distinct shard, each segment all its
// stripes and the generation all its data segments.
func (m *model) simulate(v view) *simResult {
	n := m.o.Samples
	res := &simResult{samples: n, stripeHits: make([][]int, len(m.idx.stripes)), genTimes: make([]float64, n)}
	for s := range res.stripeHits {
		res.stripeHits[s] = make([]int, len(m.at))
	}
	res.segTimes = make([][]float64, len(m.idx.segs))
	for g := range res.segTimes {
		res.segTimes[g] = make([]float64, n)
	}
	active := m.activePages()
	chunks := (n + simChunk - 1) / simChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := m.newTrialWorker(v, active)
			for c := range next {
				w.run(res, c*simChunk, min(n, (c+1)*simChunk), rand.New(rand.NewPCG(m.o.Seed, uint64(v)<<32|uint64(c))))
			}
			mu.Lock()
			defer mu.Unlock()
			for s, hits := range w.hits {
				for j, h := range hits {
					res.stripeHits[s][j] += h
				}
			}
		}()
	}
	for c := range chunks {
		next <- c
	}
	close(next)
	wg.Wait()
	return res
}

// activePages returns the live pages that carry a shard some pending
// stripe still needs: the only pages whose capture times matter.
func (m *model) activePages() []int {
	seen := map[int]bool{}
	for _, e := range m.idx.stripes {
		if !e.pending() {
			continue
		}
		for _, u := range e.carriers {
			seen[u] = true
		}
	}
	active := make([]int, 0, len(seen))
	for u := range seen {
		active = append(active, u)
	}
	slices.Sort(active)
	return active
}

// trialWorker holds one goroutine's scratch space and stripe tallies.
type trialWorker struct {
	m       *model
	v       view
	active  []int
	t       []float64 // per page: when its blocks are first stored
	buf     []float64
	hits    [][]int
	stripeT []float64
	sweeps  []sweepPlan
	logMiss [][]float64 // [archive][page]: log P(a simulated sweep misses it)
}

// newTrialWorker prepares a worker for view v.
func (m *model) newTrialWorker(v view, active []int) *trialWorker {
	w := &trialWorker{m: m, v: v, active: active, t: make([]float64, m.pages),
		hits: make([][]int, len(m.idx.stripes)), stripeT: make([]float64, len(m.idx.stripes))}
	for s := range w.hits {
		w.hits[s] = make([]int, len(m.at))
	}
	if v == sweepModel {
		w.logMiss = make([][]float64, len(m.archives))
		for a := range m.archives {
			sp := newSweepPlan(m.sweepRate[a], m.horizon)
			w.sweeps = append(w.sweeps, sp)
			w.logMiss[a] = make([]float64, m.pages)
			for _, u := range active {
				w.logMiss[a][u] = sp.logMiss(m.kappa[a][u])
			}
		}
	}
	return w
}

// run simulates trials [from, to).
func (w *trialWorker) run(res *simResult, from, to int, rng *rand.Rand) {
	m := w.m
	for trial := from; trial < to; trial++ {
		if w.v == sweepModel {
			w.drawSweeps(rng)
		} else {
			w.drawIndependent(rng)
		}
		for s := range m.idx.stripes {
			t := w.stripeTime(&m.idx.stripes[s])
			w.stripeT[s] = t
			for j, at := range m.at {
				if t <= at {
					w.hits[s][j]++
				}
			}
		}
		gen := 0.0
		for g, seg := range m.idx.segs {
			t := 0.0
			if seg.missing > 0 {
				t = math.Inf(1)
			}
			for _, s := range seg.stripes {
				if st := w.stripeT[s]; st > t {
					t = st
				}
			}
			res.segTimes[g][trial] = t
			if !seg.Listing && t > gen {
				gen = t
			}
		}
		res.genTimes[trial] = gen
	}
}

// drawIndependent draws each active page's storage time with every
// archive capturing it as an independent Poisson process. Change-aware
// archives share the page's next visible change, after which the first of
// their captures (rate: the sum of theirs) stores it.
func (w *trialWorker) drawIndependent(rng *rand.Rand) {
	m := w.m
	for _, u := range w.active {
		best, aware := math.Inf(1), 0.0
		for a := range m.archives {
			k := m.kappa[a][u]
			switch {
			case k <= 0:
			case m.aware[a] && m.awareOf[u]:
				aware += k
			default:
				if t := rng.ExpFloat64() / k; t < best {
					best = t
				}
			}
		}
		if aware > 0 && m.change[u] > 0 {
			if t := rng.ExpFloat64()/m.change[u] + rng.ExpFloat64()/aware; t < best {
				best = t
			}
		}
		w.t[u] = best
	}
}

// drawSweeps draws each archive's sweep times lazily and each active
// page's storage time: the first sweep that captures it (each sweep does
// with probability q = κ/Λ, so the count of sweeps until then is
// geometric), for a change-aware archive the first such sweep after the
// page's next visible change.
func (w *trialWorker) drawSweeps(rng *rand.Rand) {
	m := w.m
	for a := range w.sweeps {
		w.sweeps[a].reset(rng)
	}
	for _, u := range w.active {
		best := math.Inf(1)
		change := math.NaN() // drawn once, shared by the archives
		for a := range m.archives {
			k := m.kappa[a][u]
			if k <= 0 {
				continue
			}
			sw := &w.sweeps[a]
			first := 0
			if m.aware[a] && m.awareOf[u] {
				if m.change[u] <= 0 {
					continue
				}
				if math.IsNaN(change) {
					change = rng.ExpFloat64() / m.change[u]
				}
				first = sw.firstAfter(change)
			}
			if t := sw.at(first + sw.skip(w.logMiss[a][u], rng)); t < best {
				best = t
			}
		}
		w.t[u] = best
	}
}

// stripeTime is when stripe e has its k-th distinct shard in this trial.
func (w *trialWorker) stripeTime(e *stripeEntry) float64 {
	switch {
	case e.need <= 0:
		return 0
	case !e.possible():
		return math.Inf(1)
	}
	w.buf = w.buf[:0]
	for _, cs := range e.shards {
		x := math.Inf(1)
		for _, u := range cs {
			if t := w.t[u]; t < x {
				x = t
			}
		}
		w.buf = append(w.buf, x)
	}
	return nth(w.buf, e.need-1)
}

// nth returns the i-th smallest of xs (0-based), reordering xs: Hoare's
// quickselect with a median-of-three pivot, linear on average.
func nth(xs []float64, i int) float64 {
	lo, hi := 0, len(xs)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		a, b := lo, hi
		for a <= b {
			for xs[a] < pivot {
				a++
			}
			for pivot < xs[b] {
				b--
			}
			if a <= b {
				xs[a], xs[b] = xs[b], xs[a]
				a++
				b--
			}
		}
		switch {
		case i <= b:
			hi = b
		case i >= a:
			lo = a
		default:
			return xs[i]
		}
	}
	return xs[i]
}
