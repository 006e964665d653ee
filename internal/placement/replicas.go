package placement

// replicas is one segment's queue of blocks for replication, a heap
// ordered by fewest copies, then data before parity shards, then stripe,
// then shard.
type replicas struct {
	sg   *segment
	w    int     // shards per stripe
	cov  []int32 // copies per block, indexed stripe·w + shard
	heap []int32 // block indexes
}

// replicate gives each page that carries no block of this generation one
// replica, pages in order (shallowest first, then URL): the block with the
// fewest copies that fits the page's room, data shards before parity
// shards, ties going to the earlier segment (input order), stripe and
// shard.
func (st *state) replicate() {
	var empty []int32
	for i := range st.pages {
		if len(st.pages[i].refs) == 0 && st.pages[i].free > 0 {
			empty = append(empty, int32(i))
		}
	}
	if len(empty) == 0 {
		return
	}
	qs := st.replicaQueues()
	for _, p := range empty {
		if q := bestReplica(qs, st.pages[p].free); q != nil {
			b := q.heap[0]
			st.add(p, q.sg, int(b)/q.w, int(b)%q.w)
			q.cov[b]++
			q.down(0)
		}
	}
}

// bestReplica returns the queue whose next block fits free bytes and comes
// first, or nil.
func bestReplica(qs []*replicas, free int) *replicas {
	var best *replicas
	for _, q := range qs {
		if len(q.heap) == 0 || q.sg.cost > free {
			continue
		}
		if best == nil || q.before(q.heap[0], best, best.heap[0]) {
			best = q
		}
	}
	return best
}

// replicaQueues builds one queue per segment, in input order.
func (st *state) replicaQueues() []*replicas {
	qs := make([]*replicas, len(st.segs))
	for i, sg := range st.segs {
		w := sg.params.Shards()
		q := &replicas{sg: sg, w: w, cov: make([]int32, len(sg.held)*w)}
		for j, slots := range sg.held {
			for _, s := range slots {
				q.cov[j*w+int(s.shard)]++
			}
		}
		q.heap = make([]int32, len(q.cov))
		for b := range q.heap {
			q.heap[b] = int32(b)
		}
		for h := len(q.heap)/2 - 1; h >= 0; h-- {
			q.down(h)
		}
		qs[i] = q
	}
	return qs
}

// before reports whether block a of q comes before block b of o.
func (q *replicas) before(a int32, o *replicas, b int32) bool {
	if q.cov[a] != o.cov[b] {
		return q.cov[a] < o.cov[b]
	}
	pa, pb := q.parity(a), o.parity(b)
	if pa != pb {
		return pb
	}
	if q != o {
		return q.sg.index < o.sg.index
	}
	return a < b
}

// parity reports whether block b is a parity shard.
func (q *replicas) parity(b int32) bool {
	return int(b)%q.w >= q.sg.params.K
}

func (q *replicas) down(i int) {
	h := q.heap
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && q.before(h[c+1], q, h[c]) {
			c++
		}
		if !q.before(h[c], q, h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
