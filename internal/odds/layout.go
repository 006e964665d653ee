package odds

import (
	"cmp"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Layout is where a generation's blocks and manifest are, and which of
// them the archives already hold: what Needs reads.
type Layout struct {
	// Blocks maps each carrier page's key to the blocks it carries.
	Blocks map[string][]manifest.BlockRef
	// K is each segment's data shards per stripe, and Stripes its
	// stripes: a stripe no page is known to carry is a need that cannot
	// be met (unless its blocks are had), not a need left out.
	K       map[string]int
	Stripes map[string]int
	// Manifest lists the pages carrying the manifest.
	Manifest []string
	// Had are the blocks already found in an archive; ManifestHad that a
	// manifest copy was.
	Had         map[manifest.BlockRef]bool
	ManifestHad bool
}

// Needs turns a layout into the needs Recoverable takes: the manifest
// first (one copy of it), then every stripe of every segment, segments by
// name. bySegment maps a segment to the indexes of its stripes' needs. A
// block on several pages is given once, on its shallowest page (a lower
// bound); pages the layout names that pages lacks are left out.
func Needs(pages []Page, l Layout) (needs []Need, bySegment map[string][]int) {
	index := map[string]int{}
	for i, p := range pages {
		index[p.Key] = i
	}
	depth := func(i int) int {
		if d := pages[i].Depth; d >= 0 {
			return d
		}
		return MaxLevels
	}
	man := Need{K: 1}
	if l.ManifestHad {
		man.Had = 1
	}
	for _, k := range l.Manifest {
		if i, ok := index[k]; ok {
			man.Pages = append(man.Pages, i)
		}
	}
	needs = append(needs, man)

	best := map[manifest.BlockRef]int{} // block → its shallowest page
	keys := make([]string, 0, len(l.Blocks))
	for k := range l.Blocks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i, ok := index[k]
		if !ok {
			continue
		}
		for _, b := range l.Blocks[k] {
			if j, ok := best[b]; !ok || depth(i) < depth(j) {
				best[b] = i
			}
		}
	}
	type stripe struct {
		seg string
		n   uint32
	}
	byStripe := map[stripe]*Need{}
	var order []stripe
	for b, i := range best {
		s := stripe{b.Segment, b.Stripe}
		n := byStripe[s]
		if n == nil {
			n = &Need{K: l.K[b.Segment]}
			byStripe[s] = n
			order = append(order, s)
		}
		if l.Had[b] {
			n.Had++
		} else {
			n.Pages = append(n.Pages, i)
		}
	}
	for b := range l.Had {
		s := stripe{b.Segment, b.Stripe}
		if _, ok := best[b]; !ok {
			if n := byStripe[s]; n != nil {
				n.Had++
			} else {
				byStripe[s] = &Need{K: l.K[b.Segment], Had: 1}
				order = append(order, s)
			}
		}
	}
	for seg, n := range l.Stripes {
		for i := range uint32(max(0, n)) {
			s := stripe{seg, i}
			if byStripe[s] == nil {
				byStripe[s] = &Need{K: l.K[seg]}
				order = append(order, s)
			}
		}
	}
	slices.SortFunc(order, func(a, b stripe) int { return cmp.Or(cmp.Compare(a.seg, b.seg), cmp.Compare(a.n, b.n)) })
	bySegment = map[string][]int{}
	for _, s := range order {
		n := byStripe[s]
		slices.Sort(n.Pages)
		bySegment[s.seg] = append(bySegment[s.seg], len(needs))
		needs = append(needs, *n)
	}
	return needs, bySegment
}

// Tolerance returns how many carrier pages the needs survive losing,
// whichever they are: for each need, the most pages that may go, the pages
// carrying the most of its shards first, leaving K shards (shards already
// had never go); the least of these over the needs. It is −1 when some
// need is short with every page kept, and the number of distinct pages
// when no need is open.
func Tolerance(needs []Need) int {
	all := map[int]bool{}
	tol := -1
	open := false
	for _, n := range needs {
		per := map[int]int{}
		for _, u := range n.Pages {
			per[u]++
			all[u] = true
		}
		if n.Had >= n.K {
			continue
		}
		spare := n.Had + len(n.Pages) - n.K
		if spare < 0 {
			return -1
		}
		counts := make([]int, 0, len(per))
		for _, c := range per {
			counts = append(counts, c)
		}
		slices.SortFunc(counts, func(a, b int) int { return cmp.Compare(b, a) })
		t := 0
		for _, c := range counts {
			if spare -= c; spare < 0 {
				break
			}
			t++
		}
		if !open || t < tol {
			tol, open = t, true
		}
	}
	if !open {
		return len(all)
	}
	return tol
}
