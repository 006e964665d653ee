package sim

import "container/heap"

// requestMargin is how many blocks beyond K the first round of capture
// requests asks for per stripe, so that a failed request or two does not
// leave a stripe short: 1 + K/5.
func requestMargin(k int) int { return 1 + k/5 }

// requestOrder returns the pages capture requests ask for: first the
// manifest pages, then carriers in order of marginal value (each time the
// page with the most blocks of stripes still short of K + margin
// requested blocks, ties to the page first in order) until no stripe is
// short; rest are the other carriers, in page order, for a second round.
// Together they never name more pages than the layout's carriers.
func requestOrder(l *layout) (first, rest []int) {
	asked := make([]bool, len(l.pages))
	have := make([]int, len(l.need))
	ask := func(u int) {
		asked[u] = true
		first = append(first, u)
		for _, b := range l.pages[u] {
			have[b.stripe]++
		}
	}
	for u, m := range l.isMan {
		if m {
			ask(u)
		}
	}
	short := func(s int32) bool { return have[s] < min(l.width[s], l.need[s]+requestMargin(l.need[s])) }
	value := func(u int) int {
		v := 0
		for _, b := range l.pages[u] {
			if short(b.stripe) {
				v++
			}
		}
		return v
	}
	// Lazy greedy: a page's value only falls as others are asked for, so
	// a popped page whose fresh value still beats the next best is best.
	h := &valueHeap{}
	for u := range l.pages {
		if !asked[u] {
			if v := value(u); v > 0 {
				h.items = append(h.items, valued{page: u, value: v})
			}
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		top := heap.Pop(h).(valued)
		v := value(top.page)
		if v == 0 {
			continue
		}
		if h.Len() > 0 && v < top.value && less(h.items[0], valued{page: top.page, value: v}) {
			heap.Push(h, valued{page: top.page, value: v})
			continue
		}
		ask(top.page)
	}
	for u := range l.pages {
		if !asked[u] && len(l.pages[u]) > 0 {
			rest = append(rest, u)
		}
	}
	return first, rest
}

// valued is a page and its marginal value.
type valued struct{ page, value int }

// less orders pages by value, highest first, then by page.
func less(a, b valued) bool {
	if a.value != b.value {
		return a.value > b.value
	}
	return a.page < b.page
}

// valueHeap is a max-heap of pages by value.
type valueHeap struct{ items []valued }

func (h *valueHeap) Len() int           { return len(h.items) }
func (h *valueHeap) Less(i, j int) bool { return less(h.items[i], h.items[j]) }
func (h *valueHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *valueHeap) Push(x any)         { h.items = append(h.items, x.(valued)) }
func (h *valueHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
