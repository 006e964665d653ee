package sim

import (
	"fmt"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// allPagesLayout spreads the bytes ref adds over every page: the manifest
// on as many pages as ref's (the first in order), and each segment, given
// the rest of ref's bytes in proportion to its length, coded in stripes as
// wide as the site (at most erasure.MaxShards; narrower only when the
// bytes cannot pay for a block per page: each block costs its comment's
// overhead) whose blocks are dealt to the pages in order. It never adds
// more bytes than ref.
func allPagesLayout(ref *layout) (*layout, error) {
	n := len(ref.pages)
	man := ref.manifests()
	budget := ref.total() - int64(man)*int64(manifestBytes)
	var length int64
	for _, s := range ref.segs {
		length += s.length
	}
	params := make([]erasure.Params, len(ref.segs))
	width := min(n, erasure.MaxShards)
	for i, s := range ref.segs {
		p, err := widestParams(s, budget*s.length/length, width)
		for w := width - 1; err != nil && w >= 1; w-- {
			p, err = widestParams(s, budget*s.length/length, w)
		}
		if err != nil {
			return nil, err
		}
		params[i] = p
	}
	l := newLayout(ref.segs, params, n)
	for u := range man {
		l.putManifest(u % n)
	}
	next := 0
	for i, p := range params {
		for j := range p.Stripes() {
			for sh := range p.Shards() {
				l.put(next%n, i, j, sh)
				next++
			}
		}
	}
	return l, nil
}

// widestParams codes segment s in stripes of width blocks within budget
// bytes: the fewest stripes T whose blocks (at most the default block
// budget z) fit, each block as large as the budget allows, k following
// from the block size (k = ⌈L/(T·size)⌉, the rest parity).
func widestParams(s segment, budget int64, width int) (erasure.Params, error) {
	maxCost := int64(placement.BlockCommentBytes(len(s.name), placement.DefaultMaxBlockBytes))
	for t := max(1, budget/(int64(width)*maxCost)); ; t++ {
		size := largestShard(len(s.name), budget/(t*int64(width)))
		if size < 1 {
			return erasure.Params{}, fmt.Errorf("all-pages: %d bytes cannot hold a block on each of %d pages", budget, width)
		}
		if size > placement.DefaultMaxBlockBytes {
			continue
		}
		k := ceilDiv(s.length, t*int64(size))
		if k > int64(width) {
			return erasure.Params{}, fmt.Errorf("all-pages: %d bytes cannot code %d bytes over %d pages", budget, s.length, width)
		}
		return erasure.NewParams(s.length, int(k), width-int(k), int(ceilDiv(s.length, t*k)))
	}
}

// largestShard returns the largest shard size whose block comment takes
// at most room bytes, 0 when none does.
func largestShard(nameLen int, room int64) int {
	if room > int64(erasure.MaxShardSize) {
		room = int64(erasure.MaxShardSize)
	}
	n := sort.Search(int(room)+1, func(s int) bool {
		return int64(placement.BlockCommentBytes(nameLen, s+1)) > room
	})
	return n
}

// ceilDiv returns ⌈a/b⌉ for positive a, b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
