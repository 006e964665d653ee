package sim

import (
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// manifestPayload is the simulated manifest's armored payload, in bytes
// (a signed manifest of one segment is under 1 KiB).
const manifestPayload = 1024

// manifestBytes is what one manifest copy adds to a page.
var manifestBytes = placement.CommentBytes(htmlblock.KindManifest, manifestPayload)

// block is one block of a generation: a shard of a stripe, stripes
// numbered across the generation's segments.
type block struct {
	stripe int32
	shard  int32
}

// segment is one segment of the simulated backup.
type segment struct {
	name   string
	length int64
}

// layout is one generation's placement: which page carries which blocks
// and the manifest, and the bytes that adds to each page.
type layout struct {
	segs   []segment
	params []erasure.Params // per segment
	need   []int            // per stripe: K, the shards that rebuild it
	width  []int            // per stripe: K + M
	pages  [][]block        // per page index
	isMan  []bool           // per page index: carries the manifest
	bytes  []int            // per page index
	// planned is the plan's own recoverability under the capture
	// probabilities it was made with (lazarus plans only).
	planned float64
}

// newLayout returns an empty layout of n pages for segments coded with
// params.
func newLayout(segs []segment, params []erasure.Params, n int) *layout {
	l := &layout{segs: segs, params: params, pages: make([][]block, n), isMan: make([]bool, n), bytes: make([]int, n)}
	for _, p := range params {
		for range p.Stripes() {
			l.need = append(l.need, p.K)
			l.width = append(l.width, p.Shards())
		}
	}
	return l
}

// stripeBase returns the number of the first stripe of segment i.
func (l *layout) stripeBase(i int) int {
	base := 0
	for _, p := range l.params[:i] {
		base += p.Stripes()
	}
	return base
}

// blockCost is the bytes one block of segment i adds to a page.
func (l *layout) blockCost(i int) int {
	return placement.BlockCommentBytes(len(l.segs[i].name), l.params[i].ShardSize)
}

// put places block (stripe, shard) of segment seg on page u.
func (l *layout) put(u, seg int, stripe, shard int) {
	l.pages[u] = append(l.pages[u], block{stripe: int32(l.stripeBase(seg) + stripe), shard: int32(shard)})
	l.bytes[u] += l.blockCost(seg)
}

// putManifest places a manifest copy on page u.
func (l *layout) putManifest(u int) {
	if !l.isMan[u] {
		l.isMan[u] = true
		l.bytes[u] += manifestBytes
	}
}

// manifests counts the manifest copies.
func (l *layout) manifests() int {
	n := 0
	for _, m := range l.isMan {
		if m {
			n++
		}
	}
	return n
}

// total is the bytes the layout adds to all pages.
func (l *layout) total() int64 {
	var t int64
	for _, b := range l.bytes {
		t += int64(b)
	}
	return t
}

// carriers lists the pages that carry anything, in page order.
func (l *layout) carriers() []int {
	var out []int
	for u := range l.pages {
		if len(l.pages[u]) > 0 || l.isMan[u] {
			out = append(out, u)
		}
	}
	return out
}

// fromPlan converts a placement plan over the pages named by urls (page
// index order) into a layout, checking that its bytes are the plan's.
func fromPlan(plan *placement.Plan, segs []segment, urls []string) (*layout, error) {
	params := make([]erasure.Params, len(segs))
	segIndex := map[string]int{}
	for i, s := range segs {
		p, ok := plan.Params[s.name]
		if !ok {
			return nil, fmt.Errorf("plan has no parameters for segment %q", s.name)
		}
		params[i] = p
		segIndex[s.name] = i
	}
	l := newLayout(segs, params, len(urls))
	for u, url := range urls {
		for _, r := range plan.Pages[url] {
			l.put(u, segIndex[r.Segment], int(r.Stripe), int(r.Shard))
		}
	}
	for _, url := range plan.Manifest {
		for u := range urls {
			if urls[u] == url {
				l.putManifest(u)
			}
		}
	}
	for u, url := range urls {
		if l.bytes[u] != plan.Bytes[url] {
			return nil, fmt.Errorf("page %s: layout adds %d bytes, the plan %d", url, l.bytes[u], plan.Bytes[url])
		}
	}
	return l, nil
}
