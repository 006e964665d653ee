package injector

import (
	"net/url"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// report fills the result from the plan.
func (r *run) report() {
	r.res.Generation = r.gen.ID.String()
	r.res.Completed = !r.res.New && r.unfinished == r.res.Generation
	for _, s := range r.gen.Segments {
		_, changed := r.fresh[s.Name]
		if s.Kind == block.KindListing.String() {
			changed = r.res.New || s.Generation == r.gen.ID && s.ID != r.prevListingID()
		}
		r.res.Segments = append(r.res.Segments, SegmentReport{
			Name: s.Name, Changed: changed, Generation: s.Generation.String(), Sources: splitOrigins(s.Source),
			Files: s.Files, TarBytes: s.TarSize, Ciphertext: s.Length, K: s.K, M: s.M, ShardSize: s.ShardSize, Stripes: s.Stripes,
		})
	}
	for _, p := range r.pages {
		if !p.Carrier {
			r.res.Excluded = append(r.res.Excluded, p.URL+": "+p.Reason)
		}
	}
	if r.o.DryRun || r.o.SiteDir == "" { // otherwise writeSite reports the pages it writes
		for _, p := range r.pages {
			res := PageReport{URL: p.URL, Blocks: len(r.gen.Pages[p.URL]), Old: len(r.old[p.URL]), Manifest: slices.Contains(r.gen.Manifests, p.URL)}
			res.AddedBytes = r.plannedBytes(p.URL, res.Manifest)
			r.addPage(res)
		}
	}
}

// plannedBytes is what the plan adds to a page, exactly as writing it
// will: the plan counts every block comment exactly but keeps room for
// the largest manifest on manifest carriers; the signed manifest's comment
// replaces that reserve.
func (r *run) plannedBytes(url string, manifest bool) int {
	n := r.added[url]
	if manifest && n >= manifestReserve {
		n += placement.CommentBytes(htmlblock.KindManifest, len(r.gen.Envelope)) - manifestReserve
	}
	return n
}

func splitOrigins(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic("site URL validated earlier: " + err.Error())
	}
	return u
}

// prevListingID is the previous state's listing segment id, if any.
func (r *run) prevListingID() manifest.Digest {
	if prev := r.st.current(); prev != nil {
		for _, s := range prev.listingSegments() {
			return s.ID
		}
	}
	return manifest.Digest{}
}
