package placement

// The pages of each depth level form a binary heap ordered by most free
// bytes, then by URL (page index). Picking walks the levels shallowest
// first, so a pick costs O(n log P) plus the pages it skips: within a level
// the first page without room ends the level, because all later ones have
// less.

// buildHeaps puts every page into its level's heap.
func (st *state) buildHeaps() {
	for i := range st.pages {
		st.push(int32(i))
	}
}

// pick selects n distinct pages with at least cost free bytes that are not
// marked with the current stamp: shallowest level first, then most free
// bytes, then URL. On success the pages are in st.picked, in that order,
// and out of their heaps: the caller adds a block to each and pushes it
// back. On failure every page is back in its heap and pick returns false.
func (st *state) pick(n, cost int) bool {
	st.picked, st.aside = st.picked[:0], st.aside[:0]
	for l := range st.heaps {
		for len(st.picked) < n && len(st.heaps[l]) > 0 {
			p := st.heaps[l][0]
			if st.pages[p].free < cost {
				break
			}
			st.pop(l)
			if st.pages[p].mark == st.stamp {
				st.aside = append(st.aside, p)
			} else {
				st.picked = append(st.picked, p)
			}
		}
		if len(st.picked) == n {
			break
		}
	}
	for _, p := range st.aside {
		st.push(p)
	}
	if len(st.picked) < n {
		for _, p := range st.picked {
			st.push(p)
		}
		return false
	}
	return true
}

// less orders the pages of one heap.
func (st *state) less(a, b int32) bool {
	fa, fb := st.pages[a].free, st.pages[b].free
	if fa != fb {
		return fa > fb
	}
	return a < b
}

func (st *state) push(p int32) {
	l := st.pages[p].level
	st.heaps[l] = append(st.heaps[l], p)
	i := len(st.heaps[l]) - 1
	st.pages[p].hpos = int32(i)
	st.up(l, i)
}

// pop removes and returns the top of level l's heap.
func (st *state) pop(l int) int32 {
	h := st.heaps[l]
	top, last := h[0], len(h)-1
	st.swap(int32(l), 0, last)
	st.heaps[l] = h[:last]
	st.pages[top].hpos = -1
	st.down(int32(l), 0)
	return top
}

// fix restores the heap order after page p's free bytes changed.
func (st *state) fix(p int32) {
	l, i := st.pages[p].level, int(st.pages[p].hpos)
	if !st.up(l, i) {
		st.down(l, i)
	}
}

// up moves element i towards the root; it reports whether it moved.
func (st *state) up(l int32, i int) bool {
	h, start := st.heaps[l], i
	for i > 0 {
		parent := (i - 1) / 2
		if !st.less(h[i], h[parent]) {
			break
		}
		st.swap(l, i, parent)
		i = parent
	}
	return i != start
}

func (st *state) down(l int32, i int) {
	h := st.heaps[l]
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && st.less(h[c+1], h[c]) {
			c++
		}
		if !st.less(h[c], h[i]) {
			return
		}
		st.swap(l, i, c)
		i = c
	}
}

func (st *state) swap(l int32, i, j int) {
	h := st.heaps[l]
	h[i], h[j] = h[j], h[i]
	st.pages[h[i]].hpos = int32(i)
	st.pages[h[j]].hpos = int32(j)
}
