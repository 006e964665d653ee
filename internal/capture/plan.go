package capture

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// Why a page is in a capture plan (CapturePage.Why).
const (
	ForManifest = "manifest" // it carries the manifest, which no archive holds yet
	ForBlocks   = "blocks"   // its blocks raise stripes still below k + margin
)

// Page is one page a capture plan asks the archive to capture.
type Page struct {
	URL   string `json:"url"`
	Depth int    `json:"depth"` // link hops from the root page, -1 if unknown
	// Why is CaptureForManifest or CaptureForBlocks.
	Why string `json:"why"`
	// Manifest reports that the page carries the generation's manifest.
	Manifest bool `json:"manifest"`
	// NewBlocks counts its blocks that count towards a stripe's k + margin
	// and that no archive holds yet (nor a page planned before it).
	NewBlocks int `json:"new_blocks"`
	// Raises counts the stripes those blocks raise.
	Raises int `json:"raises"`
}

// Stripe is one stripe of the generation: what the archives hold
// and what the plan would bring it to.
type Stripe struct {
	Segment string `json:"segment"`
	Index   int    `json:"index"`
	K       int    `json:"k"`
	// Need is k + margin, at most the stripe's k + m blocks.
	Need int `json:"need"`
	// Archived counts the distinct blocks the archives hold now.
	Archived int `json:"archived"`
	// Planned counts them once every planned page is captured.
	Planned int `json:"planned"`
}

// stripeNeed is one stripe while planning.
type stripeNeed struct {
	name       string
	index      int
	k, need    int
	archived   int
	have       map[uint16]bool // archived and planned shards
	layoutSize int             // k + m
}

// capturePlan picks the pages to capture in order of marginal value:
// if the manifest is not archived, the root page (or else the shallowest
// page carrying it); then, greedily, the page whose blocks not yet held
// raise the most stripes below their need (ties: more such blocks, then
// the page carrying the manifest, then the shallower page, then the URL),
// until every stripe would have its need or no page raises any. At most
// max pages (0: no bound), and never more than the carrier pages.
func capturePlan(pages []verify.LivePage, stripes map[capStripe]*stripeNeed, manifestArchived bool, max int) []Page {
	limit := len(pages)
	if max > 0 {
		limit = min(limit, max)
	}
	used := make([]bool, len(pages))
	var plan []Page
	take := func(i int, why string) {
		used[i] = true
		raises, fresh := gain(pages[i], stripes)
		for _, b := range pages[i].Blocks {
			if st := stripes[capStripe{b.Segment, b.Stripe}]; st != nil {
				st.have[b.Shard] = true
			}
		}
		p := pages[i]
		plan = append(plan, Page{URL: p.URL, Depth: p.Depth, Why: why, Manifest: p.Manifest, NewBlocks: fresh, Raises: raises})
	}
	if !manifestArchived && limit > 0 {
		if i := manifestPage(pages); i >= 0 {
			take(i, ForManifest)
		}
	}
	for len(plan) < limit {
		best, bestRaises, bestFresh := -1, 0, 0
		for i, p := range pages {
			if used[i] {
				continue
			}
			raises, fresh := gain(p, stripes)
			if raises == 0 {
				continue
			}
			if best < 0 || cmp.Or(cmp.Compare(raises, bestRaises), cmp.Compare(fresh, bestFresh), pageOrder(pages[best], p)) > 0 {
				best, bestRaises, bestFresh = i, raises, fresh
			}
		}
		if best < 0 {
			break
		}
		take(best, ForBlocks)
	}
	return plan
}

// gain counts the stripes below their need that p's blocks not yet held
// raise, and those blocks (up to each stripe's need).
func gain(p verify.LivePage, stripes map[capStripe]*stripeNeed) (raises, fresh int) {
	added := map[*stripeNeed]int{}
	for _, b := range p.Blocks {
		st := stripes[capStripe{b.Segment, b.Stripe}]
		if st == nil || st.have[b.Shard] || len(st.have)+added[st] >= st.need {
			continue
		}
		if added[st] == 0 {
			raises++
		}
		added[st]++
		fresh++
	}
	return raises, fresh
}

// pageOrder compares two pages of equal gain: > 0 when b goes first
// (it carries the manifest and a does not, or it is shallower, or its URL
// sorts first).
func pageOrder(a, b verify.LivePage) int {
	depth := func(p verify.LivePage) int {
		if p.Depth < 0 {
			return 1 << 30
		}
		return p.Depth
	}
	return cmp.Or(cmp.Compare(boolInt(b.Manifest), boolInt(a.Manifest)), cmp.Compare(depth(a), depth(b)), cmp.Compare(a.URL, b.URL))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// manifestPage is the page to capture for the manifest: the root page
// if it carries it, else the shallowest that does (then by URL); -1 if
// none does.
func manifestPage(pages []verify.LivePage) int {
	best := -1
	for i, p := range pages {
		if p.Manifest && (best < 0 || pageOrder(pages[best], p) > 0) {
			best = i
		}
	}
	return best
}

// stripeNeeds lists every stripe of the generation's segments with what
// the archives hold of it and its need: k + margin, at most k + m.
func stripeNeeds(segments []block.Layout, held map[manifest.BlockKey]bool, margin int) map[capStripe]*stripeNeed {
	out := map[capStripe]*stripeNeed{}
	for _, l := range segments {
		sk := manifest.SegmentKeyOf(l)
		n := int(l.K) + int(l.M)
		for j := uint64(0); j < l.Stripes(); j++ {
			st := &stripeNeed{name: l.Name, index: int(j), k: int(l.K), need: min(int(l.K)+margin, n), have: map[uint16]bool{}, layoutSize: n}
			out[capStripe{sk, uint32(j)}] = st
		}
	}
	for h := range held {
		if st := out[capStripe{h.Segment, h.Stripe}]; st != nil && int(h.Shard) < st.layoutSize {
			st.have[h.Shard] = true
			st.archived++
		}
	}
	return out
}

// stripeReport lists the stripes in segment, then index order.
func stripeReport(stripes map[capStripe]*stripeNeed) []Stripe {
	out := make([]Stripe, 0, len(stripes))
	for _, st := range stripes {
		out = append(out, Stripe{Segment: st.name, Index: st.index, K: st.k, Need: st.need, Archived: st.archived, Planned: len(st.have)})
	}
	slices.SortFunc(out, func(a, b Stripe) int {
		return cmp.Or(cmp.Compare(a.Segment, b.Segment), cmp.Compare(a.Index, b.Index))
	})
	return out
}

// captureShort words the stripes below their need in the plan, the first few
// by name: "segment app stripe 3 (4 of 6)".
func captureShort(stripes []Stripe, most int) (out []string) {
	for _, s := range stripes {
		if s.Planned < s.Need {
			if len(out) == most {
				out = append(out, "…")
				break
			}
			out = append(out, fmt.Sprintf("segment %s stripe %d (%d of %d)", s.Segment, s.Index, s.Planned, s.Need))
		}
	}
	return out
}
