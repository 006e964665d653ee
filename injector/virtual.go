package injector

import (
	"math"
	"strconv"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// virtualPrefix starts the URLs of stand-in carriers; real page URLs start
// with "/".
const virtualPrefix = "virtual:"

// virtualCarriers stands in for the pages of a site whose URLs are not known
// (Options.Carriers): a root and Carriers-1 pages linked from it, or more
// when the blocks of segs (parity included, with a quarter to spare) need
// more pages at PageBudget each. The plan is made with them,
// then their URLs are dropped (realPages): the Caddy module assigns blocks
// to the pages it serves.
func (r *run) virtualCarriers(segs []segmentInfo) []placement.Carrier {
	blocks := 0.0
	perPage := r.o.PageBudget
	for _, s := range segs {
		blocks += math.Ceil(float64(s.Length)/float64(r.o.blockBudget())) * (1 + r.o.Redundancy)
		perPage = min(perPage, r.o.PageBudget/placement.BlockCommentBytes(len(s.Name), r.o.blockBudget()))
	}
	perPage = max(perPage, 1)
	n := max(r.o.Carriers, int(math.Ceil(blocks*1.25/float64(perPage)))+2)
	out := make([]placement.Carrier, n)
	for i := range out {
		out[i] = placement.Carrier{URL: virtualPrefix + strconv.Itoa(i), Depth: min(i, 1), Capacity: r.o.PageBudget}
	}
	out[0].Capacity += manifestReserve // the module adds the manifest beside the blocks
	return out
}

// realPages drops the stand-in carriers from a URL → blocks map.
func realPages(pages map[string][]blockRef) map[string][]blockRef {
	out := make(map[string][]blockRef, len(pages))
	for url, refs := range pages {
		if !isVirtual(url) {
			out[url] = refs
		}
	}
	return out
}

func isVirtual(url string) bool { return strings.HasPrefix(url, virtualPrefix) }
