package capture

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// planWorld is one segment "s" of stripes of k = 2, m = 4 and pages by
// name: blocks as "stripe/shard" pairs.
type planWorld struct {
	seg   manifest.SegmentKey
	pages []verify.LivePage
}

func (w *planWorld) page(url string, depth int, hasManifest bool, blocks ...[2]int) {
	p := verify.LivePage{URL: url, Depth: depth, Manifest: hasManifest}
	for _, b := range blocks {
		p.Blocks = append(p.Blocks, manifest.BlockKey{Segment: w.seg, Stripe: uint32(b[0]), Shard: uint16(b[1])})
	}
	w.pages = append(w.pages, p)
}

// needs makes the stripes (k = 2, n = 6) with need and the archived
// shards.
func (w *planWorld) needs(stripes, need int, archived ...[2]int) map[capStripe]*stripeNeed {
	out := map[capStripe]*stripeNeed{}
	for i := range stripes {
		out[capStripe{w.seg, uint32(i)}] = &stripeNeed{name: "s", index: i, k: 2, need: need, have: map[uint16]bool{}, layoutSize: 6}
	}
	for _, a := range archived {
		st := out[capStripe{w.seg, uint32(a[0])}]
		st.have[uint16(a[1])] = true
		st.archived++
	}
	return out
}

func urls(plan []Page) []string {
	var out []string
	for _, p := range plan {
		out = append(out, fmt.Sprintf("%s:%s:%d/%d", p.URL, p.Why, p.Raises, p.NewBlocks))
	}
	return out
}

// TestCapturePlan: one subtest per rule of the greedy plan.
func TestCapturePlan(t *testing.T) {
	newWorld := func() *planWorld {
		w := &planWorld{seg: manifest.SegmentKey{Name: "s"}}
		w.page("/", 0, true, [2]int{0, 0})
		w.page("/a", 1, true, [2]int{0, 1}, [2]int{1, 1})
		w.page("/b", 1, false, [2]int{0, 2}, [2]int{1, 2}, [2]int{1, 3})
		w.page("/c", 2, false, [2]int{0, 3}, [2]int{1, 0})
		w.page("/d", 1, false, [2]int{0, 4}, [2]int{1, 4})
		return w
	}
	for _, tc := range []struct {
		name     string
		need     int
		archived [][2]int
		manifest bool // archived
		max      int
		want     []string
	}{
		// The root first for the manifest, though /b gives more; then /b
		// (2 stripes, 3 blocks), then /a (2 stripes, 2 blocks, and the
		// manifest) over /c and /d; then every stripe has 3.
		{name: "manifest first", need: 3, want: []string{"/:manifest:1/1", "/b:blocks:2/3", "/a:blocks:2/2"}},
		// With the manifest archived the greedy order alone: /b, then of
		// the ties of 2 stripes and 2 blocks /a, which carries the
		// manifest; stripe 0 still needs one: of the pages giving one
		// block, the root (the manifest, and shallowest).
		{name: "manifest archived", need: 3, manifest: true, want: []string{"/b:blocks:2/3", "/a:blocks:2/2", "/:blocks:1/1"}},
		// Archived blocks count: stripe 1 holds 3 already, so only
		// stripe 0 needs raising, one block a page: the manifest's pages
		// first (root, then /a), then the shallower /b over /c and /d.
		{name: "archived blocks", need: 3, manifest: true, archived: [][2]int{{1, 0}, {1, 1}, {1, 2}},
			want: []string{"/:blocks:1/1", "/a:blocks:1/1", "/b:blocks:1/1"}},
		// Everything archived at need: nothing to ask.
		{name: "safe already", need: 2, manifest: true, archived: [][2]int{{0, 5}, {0, 3}, {1, 5}, {1, 0}}},
		// Need beyond what the pages carry: every page raising something
		// is asked, never more than the pages.
		{name: "need beyond the pages", need: 6, want: []string{"/:manifest:1/1", "/b:blocks:2/3", "/a:blocks:2/2", "/d:blocks:2/2", "/c:blocks:2/2"}},
		// Max bounds the requests.
		{name: "max", need: 6, max: 2, want: []string{"/:manifest:1/1", "/b:blocks:2/3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			got := urls(capturePlan(w.pages, w.needs(2, tc.need, tc.archived...), tc.manifest, tc.max))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("plan %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestCapturePlanManifestOffRoot: without the manifest on the root page,
// the shallowest page carrying it comes first.
func TestCapturePlanManifestOffRoot(t *testing.T) {
	w := &planWorld{seg: manifest.SegmentKey{Name: "s"}}
	w.page("/", 0, false, [2]int{0, 0}, [2]int{0, 1})
	w.page("/z", 1, true)
	w.page("/deep", 2, true, [2]int{0, 2})
	got := urls(capturePlan(w.pages, w.needs(1, 2), false, 0))
	if want := []string{"/z:manifest:0/0", "/:blocks:1/2"}; !slices.Equal(got, want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
}
