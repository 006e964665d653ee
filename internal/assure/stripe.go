package assure

import (
	"math/bits"
	"slices"
)

// MaxHubs is the most "hub" carriers (pages carrying two or more needed
// shards of one stripe) that one connected group may have for a stripe's
// plan to stay exact; it enumerates the 2^MaxHubs capture patterns of a
// group. Beyond it the stripe is left to the Monte Carlo (simulate.go).
const MaxHubs = 12

// stripePlan is the structure of one stripe, fixed while the carriers'
// probabilities vary (with time, in bisection). Its eval is P_rec of the
// stripe, counting the archived shards as certain and each carrier
// captured independently, exact even when shards have replicas.
//
// Shards carried by no page that carries another needed shard are
// independent: shard b is available with probability 1 − Π(1 − p_u) over
// its carriers (its replicas), and enters the DP as a one-block page.
// Pages carrying several needed shards ("hubs") make those shards
// dependent; shards linked through hubs form a group, and for each group
// the 2^h capture patterns of its h hubs are enumerated, with the
// remaining shards independent given the pattern. Groups combine by
// capped convolution. When pages hold disjoint shards this is exactly the
// DP S ← min(r, S + c_u) of BRIEF §5.
type stripePlan struct {
	need   int       // distinct shards still needed beyond the archived ones
	leaves [][]int   // independent shards: their carriers' positions
	groups []hubPlan // dependent shards, linked through hubs
	exact  bool      // every group has at most MaxHubs hubs
}

// hubPlan is a group of shards linked by hubs.
type hubPlan struct {
	hubs   []int      // carrier positions of the hubs
	cover  [][]uint64 // cover[h]: bitset of the group's shards hub h carries
	leaves [][]int    // per group shard: its non-hub carriers' positions
}

// newStripePlan analyses a stripe: carrier i carries the shards lists[i].
func newStripePlan(k int, archived []int, lists [][]int) *stripePlan {
	have := map[int]bool{}
	for _, s := range archived {
		have[s] = true
	}
	pl := &stripePlan{need: k - len(have), exact: true}
	if pl.need <= 0 {
		return pl
	}
	local := map[int]int{} // needed shard → local index
	var leaves [][]int     // per local shard: non-hub carriers
	var hubs []int
	var hubShards [][]int
	for i, list := range lists {
		var own []int
		for _, s := range list {
			if have[s] {
				continue
			}
			j, ok := local[s]
			if !ok {
				j = len(leaves)
				local[s] = j
				leaves = append(leaves, nil)
			}
			if !slices.Contains(own, j) {
				own = append(own, j)
			}
		}
		switch len(own) {
		case 0:
		case 1:
			leaves[own[0]] = append(leaves[own[0]], i)
		default:
			hubs = append(hubs, i)
			hubShards = append(hubShards, own)
		}
	}
	pl.group(leaves, hubs, hubShards)
	return pl
}

// group splits the needed shards into independent leaves and hub groups.
func (pl *stripePlan) group(leaves [][]int, hubs []int, hubShards [][]int) {
	uf := newUnionFind(len(leaves))
	for _, own := range hubShards {
		for _, j := range own[1:] {
			uf.union(own[0], j)
		}
	}
	groupOf := map[int]int{} // root → index in pl.groups
	for h, own := range hubShards {
		root := uf.find(own[0])
		g, ok := groupOf[root]
		if !ok {
			g = len(pl.groups)
			groupOf[root] = g
			pl.groups = append(pl.groups, hubPlan{})
		}
		pl.groups[g].hubs = append(pl.groups[g].hubs, hubs[h])
	}
	pos := make([]int, len(leaves)) // shard → position within its group
	for j := range leaves {
		g, ok := groupOf[uf.find(j)]
		if !ok {
			pl.leaves = append(pl.leaves, leaves[j])
			continue
		}
		pos[j] = len(pl.groups[g].leaves)
		pl.groups[g].leaves = append(pl.groups[g].leaves, leaves[j])
	}
	for _, own := range hubShards {
		g := groupOf[uf.find(own[0])]
		words := (len(pl.groups[g].leaves) + 63) / 64
		set := make([]uint64, words)
		for _, j := range own {
			set[pos[j]/64] |= 1 << (pos[j] % 64)
		}
		pl.groups[g].cover = append(pl.groups[g].cover, set)
	}
	for _, g := range pl.groups {
		if len(g.hubs) > MaxHubs {
			pl.exact = false
		}
	}
}

// eval returns P_rec given each carrier position's capture probability.
// The plan must be exact.
func (pl *stripePlan) eval(p []float64) float64 {
	if pl.need <= 0 {
		return 1
	}
	dist := make([]float64, pl.need+1)
	dist[0] = 1
	for _, cs := range pl.leaves {
		addPage(dist, 1-missAll(p, cs), 1)
	}
	if len(pl.groups) > 0 {
		g := make([]float64, pl.need+1)
		scratch := make([]float64, pl.need+1)
		for i := range pl.groups {
			pl.groups[i].dist(p, g)
			addCount(dist, g, scratch)
		}
	}
	return clamp01(dist[pl.need])
}

// dist fills g with the distribution of the number of the group's shards
// available, capped at len(g)−1, by enumerating its hubs' capture patterns.
func (hp *hubPlan) dist(p []float64, g []float64) {
	r := len(g) - 1
	clear(g)
	leafP := make([]float64, len(hp.leaves))
	for j, cs := range hp.leaves {
		leafP[j] = 1 - missAll(p, cs)
	}
	covered := make([]uint64, len(hp.cover[0]))
	sub := make([]float64, r+1)
	for mask := range 1 << len(hp.hubs) {
		w := 1.0
		clear(covered)
		for h, u := range hp.hubs {
			if mask&(1<<h) != 0 {
				w *= p[u]
				for i, x := range hp.cover[h] {
					covered[i] |= x
				}
			} else {
				w *= 1 - p[u]
			}
		}
		if w == 0 {
			continue
		}
		n := 0
		for _, x := range covered {
			n += bits.OnesCount64(x)
		}
		clear(sub)
		sub[min(r, n)] = 1
		for j, pj := range leafP {
			if covered[j/64]&(1<<(j%64)) == 0 {
				addPage(sub, pj, 1)
			}
		}
		for s, m := range sub {
			g[s] += w * m
		}
	}
}

// missAll is Π(1 − p[u]) over the positions cs.
func missAll(p []float64, cs []int) float64 {
	miss := 1.0
	for _, u := range cs {
		miss *= 1 - p[u]
	}
	return miss
}

// unionFind is a disjoint-set forest with path halving.
type unionFind []int

func newUnionFind(n int) unionFind {
	uf := make(unionFind, n)
	for i := range uf {
		uf[i] = i
	}
	return uf
}

func (uf unionFind) find(x int) int {
	for uf[x] != x {
		uf[x] = uf[uf[x]]
		x = uf[x]
	}
	return x
}

func (uf unionFind) union(a, b int) { uf[uf.find(a)] = uf.find(b) }
