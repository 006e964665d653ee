package assure

// clamp01 bounds a probability to [0, 1] against rounding.
func clamp01(p float64) float64 { return min(1, max(0, p)) }

// addPage folds one page (probability p, c blocks) into dist, the
// distribution of the capped count; dist[len-1] absorbs. Descending order
// lets the update run in place: mass only moves up.
func addPage(dist []float64, p float64, c int) {
	r := len(dist) - 1
	if c <= 0 || p <= 0 {
		return
	}
	for s := r - 1; s >= 0; s-- {
		m := dist[s]
		if m == 0 {
			continue
		}
		dist[s] = m * (1 - p)
		dist[min(r, s+c)] += m * p
	}
}

// addCount folds a component whose capped contribution is j blocks with
// probability g[j] into dist (capped convolution, O(r²)).
func addCount(dist, g, scratch []float64) {
	r := len(dist) - 1
	clear(scratch)
	for s, ms := range dist {
		if ms == 0 {
			continue
		}
		if s == r {
			scratch[r] += ms
			continue
		}
		for j, gj := range g {
			scratch[min(r, s+j)] += ms * gj
		}
	}
	copy(dist, scratch)
}
