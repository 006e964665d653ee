package sim

import (
	"container/heap"
	"math"
	"math/rand/v2"
)

// Rotation says when a replaced generation's blocks leave the pages.
type Rotation int

const (
	// MakeBeforeBreak keeps a replaced generation's blocks until a newer
	// generation is recoverable (at status's next check), or until
	// Config.MaxAge after it was replaced.
	MakeBeforeBreak Rotation = iota
	// BreakBeforeMake drops them as soon as the next generation is
	// published.
	BreakBeforeMake
)

// String names the rotation as the report does.
func (r Rotation) String() string {
	if r == BreakBeforeMake {
		return "break-before-make"
	}
	return "make-before-break"
}

// genInput is one generation as the ledger takes it.
type genInput struct {
	at          float64 // day it is published
	l           *layout
	first, rest []int // pages capture requests ask for (requestOrder)
}

// ledgerOptions tune one accounting.
type ledgerOptions struct {
	rotation Rotation
	check    float64 // days between status checks; 0: status sees at once
	maxAge   float64 // make-before-break age limit in days; 0: none
	end      float64 // day the accounting stops
	requests bool    // ask for captures when a generation is published
	success  float64 // probability a request gets a capture
	attempts int     // requests for a page while they fail (see request)
	delay    float64 // mean days from request to capture
	audit    float64 // days after publication of the second round's audit
}

// outcome is what happened to one generation.
type outcome struct {
	safe     float64 // day it became recoverable; +Inf if not before end
	drop     float64 // day its blocks left the pages; +Inf if they never did
	requests int     // capture requests made for it
}

// Event kinds, in the order events at the same instant are handled: a
// page switches to a new generation before a capture at that instant
// sees it.
const (
	publishEvent = iota
	auditEvent
	captureEvent
)

// event is a scheduled happening.
type event struct {
	t    float64
	kind int
	n    int // generation (publish, audit) or page (capture)
	seq  int // insertion order, for a deterministic tie-break
}

// genState tracks which blocks of one generation the archive holds.
type genState struct {
	in      *genInput
	offset  []int  // per stripe: index of its shard 0 in got
	got     []bool // per block: stored by some capture
	count   []int  // per stripe: distinct shards stored
	pending int    // stripes short of K
	man     bool   // a manifest copy was stored
	asked   []bool // per page: capture requests were made for it
	out     outcome
}

// ledger replays one run of one policy.
type ledger struct {
	o      ledgerOptions
	gens   []*genState
	live   int // generations published so far
	events eventHeap
	seq    int
	rng    *rand.Rand
}

// account replays the archive's captures (natural, sorted by time) and the
// capture requests against the generations (sorted by publication) and
// returns what happened to each. rng draws the requests' fates; it may be
// nil when o.requests is false.
func account(gens []genInput, natural []capture, o ledgerOptions, rng *rand.Rand) []outcome {
	lg := &ledger{o: o, rng: rng}
	for i := range gens {
		lg.gens = append(lg.gens, newGenState(&gens[i]))
		lg.push(event{t: gens[i].at, kind: publishEvent, n: i})
	}
	next := 0
	for {
		var e event
		switch {
		case lg.events.Len() > 0 && (next == len(natural) || lg.events.before(natural[next])):
			e = heap.Pop(&lg.events).(event)
		case next < len(natural):
			e = event{t: natural[next].t, kind: captureEvent, n: natural[next].page}
			next++
		default:
			return lg.outcomes()
		}
		if e.t >= o.end {
			return lg.outcomes()
		}
		lg.handle(e)
	}
}

// newGenState prepares the tally of a generation.
func newGenState(in *genInput) *genState {
	g := &genState{in: in, offset: make([]int, len(in.l.need)), count: make([]int, len(in.l.need)),
		pending: len(in.l.need), out: outcome{safe: math.Inf(1), drop: math.Inf(1)}}
	total := 0
	for s, w := range in.l.width {
		g.offset[s] = total
		total += w
	}
	g.got = make([]bool, total)
	return g
}

// handle applies one event.
func (lg *ledger) handle(e event) {
	switch e.kind {
	case publishEvent:
		lg.publish(e.n, e.t)
	case auditEvent:
		if g := lg.gens[e.n]; math.IsInf(g.out.safe, 1) {
			lg.request(g, g.in.rest, e.t)
		}
	case captureEvent:
		lg.capture(e.n, e.t)
	}
}

// publish puts generation i on the pages at day t and applies the
// rotation to the one it replaces.
func (lg *ledger) publish(i int, t float64) {
	lg.live = i + 1
	if i > 0 {
		prev := &lg.gens[i-1].out
		switch {
		case lg.o.rotation == BreakBeforeMake:
			prev.drop = min(prev.drop, t)
		case lg.o.maxAge > 0:
			prev.drop = min(prev.drop, t+lg.o.maxAge)
		}
	}
	if lg.o.requests {
		g := lg.gens[i]
		taken := lg.request(g, g.in.first, t)
		lg.escalate(g, taken, t+lg.firstRoundDays()+auditEveryDays)
		lg.push(event{t: t + lg.o.audit, kind: auditEvent, n: i})
	}
}

// escalate is what lazarus capture's audits do once the first round's
// requests are over: for every stripe still short of K + margin blocks on
// pages the archive took, it asks at day t for the other carriers of that
// stripe (rest, in order), as long as the stripe stays short.
func (lg *ledger) escalate(g *genState, taken []int, t float64) {
	l := g.in.l
	have := make([]int, len(l.need))
	add := func(u int) {
		for _, b := range l.pages[u] {
			have[b.stripe]++
		}
	}
	for _, u := range taken {
		add(u)
	}
	for _, u := range g.in.rest {
		short := false
		for _, b := range l.pages[u] {
			short = short || have[b.stripe] < min(l.width[b.stripe], l.need[b.stripe]+requestMargin(l.need[b.stripe]))
		}
		if short {
			for _, v := range lg.request(g, []int{u}, t) {
				add(v)
			}
		}
	}
}

// firstRoundDays is how long a first round of requests lasts: the
// retries of a page whose requests all fail.
func (lg *ledger) firstRoundDays() float64 {
	return retryDays * float64(int(1)<<(max(1, lg.o.attempts)-1)-1)
}

// auditEveryDays is lazarus capture's pause between audits (5 minutes).
const auditEveryDays = 5.0 / (24 * 60)

// request asks for captures of pages not asked for yet at day t, asking
// again for a page whose request failed retryDays later, the pause
// doubling, up to o.attempts requests in all (lazarus capture's
// schedule). It returns the pages the archive took.
func (lg *ledger) request(g *genState, pages []int, t float64) []int {
	var taken []int
	if g.asked == nil {
		g.asked = make([]bool, len(g.in.l.pages))
	}
	for _, u := range pages {
		if g.asked[u] {
			continue
		}
		g.asked[u] = true
		at, pause := t, retryDays
		for range max(1, lg.o.attempts) {
			g.out.requests++
			if lg.rng.Float64() < lg.o.success {
				d := 0.0
				if lg.o.delay > 0 {
					d = lg.rng.ExpFloat64() * lg.o.delay
				}
				lg.push(event{t: at + d, kind: captureEvent, n: u})
				taken = append(taken, u)
				break
			}
			at, pause = at+pause, 2*pause
		}
	}
	return taken
}

// retryDays is the pause before a failed request is made again
// (lazarus capture's default retry, 10 minutes), doubled after each.
const retryDays = 10.0 / (24 * 60)

// capture stores page u's current version at day t: the blocks of every
// generation it carries then.
func (lg *ledger) capture(u int, t float64) {
	for i, g := range lg.gens[:lg.live] {
		if t >= g.out.drop || !math.IsInf(g.out.safe, 1) {
			continue
		}
		l := g.in.l
		g.man = g.man || l.isMan[u]
		for _, b := range l.pages[u] {
			at := g.offset[b.stripe] + int(b.shard)
			if g.got[at] {
				continue
			}
			g.got[at] = true
			g.count[b.stripe]++
			if g.count[b.stripe] == l.need[b.stripe] {
				g.pending--
			}
		}
		if g.pending == 0 && g.man {
			g.out.safe = t
			lg.recoverable(i, t)
		}
	}
}

// recoverable applies make-before-break once generation i is recoverable
// at day t: status sees it at its next check, and every older generation
// leaves the pages then.
func (lg *ledger) recoverable(i int, t float64) {
	if lg.o.rotation != MakeBeforeBreak {
		return
	}
	seen := t
	if lg.o.check > 0 {
		seen = math.Ceil(t/lg.o.check) * lg.o.check
	}
	for _, g := range lg.gens[:i] {
		g.out.drop = min(g.out.drop, seen)
	}
}

// outcomes returns every generation's outcome.
func (lg *ledger) outcomes() []outcome {
	out := make([]outcome, len(lg.gens))
	for i, g := range lg.gens {
		out[i] = g.out
	}
	return out
}

// push schedules an event.
func (lg *ledger) push(e event) {
	e.seq = lg.seq
	lg.seq++
	heap.Push(&lg.events, e)
}

// eventHeap orders events by time, kind and insertion.
type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// before reports whether the earliest scheduled event comes before the
// natural capture c (scheduled captures at the same instant go first).
func (h eventHeap) before(c capture) bool {
	return h[0].t <= c.t
}
