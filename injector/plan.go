package injector

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// manifestReserve is the room kept for the manifest comment on manifest
// carriers: a manifest envelope armors to less than 16 KiB.
const manifestReserve = 16<<10 + 1

// plan chooses the generation (new or unchanged), the coding parameters and
// the placement, and signs the manifest. When the pages can no longer take
// an unchanged segment's earlier coding (the site lost pages, say), the
// unchanged segments are coded anew: a new generation, same ciphertext.
func (r *run) plan(segs []segmentInfo) error {
	prev := r.st.current()
	changed := r.changed(segs)
	alt := r.requestsAlternative(segs, changed) // first: placeAs sets the run's generation, which the plan below sets again
	p, planned, err := r.placeAs(segs, changed, false)
	var be *placement.BudgetError
	if errors.As(err, &be) && be.Fixed {
		changed = true
		p, planned, err = r.placeAs(segs, true, true)
	}
	if err != nil {
		return err
	}
	r.res.New = changed
	if changed && prev != nil {
		r.res.Previous = prev.ID.String()
	}
	r.apply(p, planned)
	if alt != nil {
		alt.Share = float64(planBytes(alt.plan)) / float64(max(1, planBytes(p)))
		r.res.WithRequests = alt
	}
	if err := r.sign(prev, changed); err != nil {
		return err
	}
	if len(r.o.Capture) > 0 && r.o.Requests == nil && r.res.CaptureRates == 0 {
		r.res.Warnings = append(r.res.Warnings, "none of the pages the capture probabilities name is a carrier page: every page was planned as kept with probability 1/2")
	}
	if t, got := r.o.Target, r.res.Recoverability; t > 0 && got < t {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the planner's figure (each page kept independently with its capture probability, a ceiling) is %.4g%%, short of its %.4g%% target: %s cannot hold more", 100*got, 100*t,
			humane.Count(r.res.Carriers, "carrier page")))
	}
	if r.o.MaxPageBytes > CrawlTruncation {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("pages with blocks may grow to %d MiB: Common Crawl cuts records at 5 MiB (at 1 MiB before February 2025), so the blocks past that point of a larger page are lost in its crawls; only archives keeping larger pages, such as the Wayback Machine, keep them",
			r.o.MaxPageBytes>>20))
	}
	r.res.FullWidth = r.o.Fill && r.fullWidth()
	return nil
}

// fullWidth reports whether every stripe of every data segment spans
// every carrier page, or the most blocks a stripe can have: the most
// redundancy the pages hold, whatever their room.
func (r *run) fullWidth() bool {
	width := min(r.res.Carriers, erasure.MaxShards)
	for _, s := range r.gen.Segments {
		if s.Kind == "data" && s.K+s.M < width {
			return false
		}
	}
	return width > 0
}

// placeAs places a copy of segs for a new generation (changed) or the
// current one; recode drops the earlier coding of unchanged segments. It
// returns the plan and the segments as placed.
func (r *run) placeAs(segs []segmentInfo, changed, recode bool) (*placement.Plan, []segmentInfo, error) {
	prev := r.st.current()
	segs = slices.Clone(segs)
	r.gen = generationInfo{ID: newGenerationID(), Time: r.o.Now().UTC().Truncate(time.Second)}
	if !changed {
		r.gen.ID, r.gen.Time = prev.ID, prev.Time
	}
	for i := range segs {
		_, isNew := r.fresh[segs[i].Name]
		if recode && !isNew {
			segs[i].K, segs[i].M, segs[i].ShardSize, segs[i].Stripes = 0, 0, 0, 0
		}
		if isNew || recode {
			segs[i].Generation, segs[i].Time = r.gen.ID, r.gen.Time
		}
	}
	if !changed {
		segs = append(segs, prev.listingSegments()...)
	}
	p, err := r.place(segs, nil)
	return p, segs, err
}

// carriers turns the pages into placement carriers with their capacity:
// the page budget, or what keeps the page under MaxPageBytes. With
// Options.Carriers they are stand-ins (see virtualCarriers).
func (r *run) carriers(segs []segmentInfo) []placement.Carrier {
	if r.o.Carriers > 0 {
		return r.virtualCarriers(segs)
	}
	var out []placement.Carrier
	for _, p := range r.pages {
		if !p.Carrier {
			continue
		}
		room := min(int64(r.o.PageBudget), int64(r.o.MaxPageBytes)-p.Size)
		if room <= 0 {
			continue
		}
		out = append(out, placement.Carrier{URL: p.URL, Depth: p.Depth, Capacity: int(room)})
	}
	return out
}

// place plans segs (fixed ones keep their parameters and, where possible,
// their pages). keep pins segments placed by an earlier pass.
func (r *run) place(segs []segmentInfo, keep *placement.Plan) (*placement.Plan, error) {
	prev := r.st.current()
	var in []placement.Segment
	for i := range segs {
		s := &segs[i]
		ps := placement.Segment{Name: s.Name, Length: s.Length}
		if s.K > 0 { // planned before: unchanged, or placed by an earlier pass
			p, err := segParams(s)
			if err != nil {
				return nil, err
			}
			ps.Fixed = &p
			ps.Previous = previousPlacement(prev, s.Name, keep)
		}
		in = append(in, ps)
	}
	carriers := r.carriers(segs)
	r.res.Carriers = len(carriers)
	p, err := placement.Place(in, carriers, placement.Options{
		MaxBlockBytes: r.o.blockBudget(), Redundancy: r.o.Redundancy, ManifestBytes: manifestReserve,
		Target: r.o.Target, Capture: r.o.planCapture(carrierURLs(carriers)), NoSpare: !r.o.Fill,
		Old: r.oldBlocks(segs), OldBeforeSpare: true, // make-before-break: the previous generation stays before spare parity
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// carrierURLs are the carriers' URLs.
func carrierURLs(carriers []placement.Carrier) []string {
	out := make([]string, len(carriers))
	for i, c := range carriers {
		out[i] = c.URL
	}
	return out
}

// previousPlacement returns where a segment's blocks were: in keep (an
// earlier pass of this run) or in the previous generation.
func previousPlacement(prev *generationInfo, name string, keep *placement.Plan) map[manifest.BlockRef][]string {
	pages := map[string][]blockRef{}
	if keep != nil {
		pages = keep.Pages
	} else if prev != nil {
		pages = prev.Pages
	}
	out := map[manifest.BlockRef][]string{}
	for _, url := range slices.Sorted(maps.Keys(pages)) {
		for _, ref := range pages[url] {
			if ref.Segment == name {
				out[ref] = append(out[ref], url)
			}
		}
	}
	return out
}

// apply records the plan's parameters in the segments and the generation.
func (r *run) apply(p *placement.Plan, segs []segmentInfo) {
	for i := range segs {
		s := &segs[i]
		prm := p.Params[s.Name]
		s.Code, s.K, s.M, s.ShardSize, s.Stripes = "rs8", prm.K, prm.M, prm.ShardSize, prm.Stripes()
	}
	r.gen.Segments = segs
	r.gen.Pages = realPages(p.Pages)
	r.gen.Manifests = slices.DeleteFunc(slices.Clone(p.Manifest), isVirtual) // the plan keeps its own
	r.old = p.Old
	r.added = p.Bytes
	r.res.Recoverability, r.res.Target, r.res.Requests = p.Recoverability, r.o.Target, r.o.Requests
	r.res.Outlook = r.outlook(p)
	r.res.Kept = r.keptGenerations(p.Old)
	r.res.CaptureRates = 0
	for _, pg := range r.pages {
		if _, ok := r.o.Capture[pg.URL]; ok && pg.Carrier {
			r.res.CaptureRates++
		}
	}
}

// sign builds the manifest. An unchanged generation whose placement did not
// move keeps its signed manifest byte for byte (the inline listing is
// encrypted with fresh randomness, so re-signing would change every
// manifest page).
func (r *run) sign(prev *generationInfo, changed bool) error {
	if !changed && prev != nil && samePlacement(prev, &r.gen) {
		r.gen.Envelope = prev.Envelope
		r.gen.Segments = prev.Segments
		return nil
	}
	r.dropListing()
	m := &manifest.Manifest{Generation: r.gen.ID, Time: r.gen.Time, Site: r.o.SiteURL}
	if prev != nil && prev.ID != r.gen.ID {
		id := prev.ID
		m.Previous = &id
	}
	for i := range r.gen.Segments {
		m.Segments = append(m.Segments, r.gen.Segments[i].Segment)
	}
	list := &manifest.FileList{Files: r.files, Carriers: carrierList(r.gen.Pages)}
	env, listing, err := codec.BuildManifest(m, list, r.sealer, codec.SealOptions{TempDir: r.tmp})
	if err != nil {
		return err
	}
	if listing != nil { // too large to travel inline: a segment of its own
		defer listing.Close()
		p, carriers, err := r.placeListing(listing)
		if err != nil {
			return fmt.Errorf("placing the listing segment: %w", err)
		}
		if env, err = codec.SignWithListing(m, listing, p, carriers, r.sealer); err != nil {
			return err
		}
	}
	r.gen.Envelope = env
	return nil
}

// placeListing places the listing segment around the data segments already
// placed, which keep their pages. Its ciphertext waits in the run's
// temporary directory until commit moves it into the state.
func (r *run) placeListing(ls *codec.Sealed) (erasure.Params, []manifest.Carrier, error) {
	if !r.o.DryRun {
		r.listing = &pendingSegment{path: filepath.Join(r.tmp, "listing-"+ls.ID.String()), id: ls.ID}
		if err := ls.Save(r.listing.path); err != nil {
			return erasure.Params{}, nil, err
		}
	}
	info := segmentInfo{Cipher: uint8(ls.Cipher), Signer: r.signerID(), Source: "listing"}
	info.Name, info.Kind, info.ID, info.Length = ls.Name, block.KindListing.String(), ls.ID, ls.Length
	info.Generation, info.Time = r.gen.ID, r.gen.Time
	keep := &placement.Plan{Pages: r.gen.Pages}
	fixed := slices.Clone(r.gen.Segments)
	p, err := r.place(append(fixed, info), keep)
	if err != nil {
		return erasure.Params{}, nil, err
	}
	r.apply(p, append(fixed, info))
	return p.Params[ls.Name], r.listingCarriers(p, ls.Name), nil
}

// maxListingCarriers bounds how many carriers of the listing segment the
// manifest names, so the manifest stays small on sites of any size; they
// are the shallowest ones, and recovery finds the others by sweeping.
const maxListingCarriers = 48

// listingCarriers returns the shallowest carriers of the listing
// segment's blocks.
func (r *run) listingCarriers(p *placement.Plan, name string) []manifest.Carrier {
	var out []manifest.Carrier
	for _, pg := range r.pages { // sorted by depth, then URL
		var refs []blockRef
		for _, ref := range p.Pages[pg.URL] {
			if ref.Segment == name {
				refs = append(refs, ref)
			}
		}
		if len(refs) > 0 && len(out) < maxListingCarriers {
			out = append(out, manifest.Carrier{URL: pg.URL, Blocks: refs})
		}
	}
	return out
}

// carrierList turns URL → blocks into the manifest's sorted carrier list.
func carrierList(pages map[string][]blockRef) []manifest.Carrier {
	var out []manifest.Carrier
	for _, url := range slices.Sorted(maps.Keys(pages)) {
		if len(pages[url]) > 0 {
			out = append(out, manifest.Carrier{URL: url, Blocks: pages[url]})
		}
	}
	return out
}

// samePlacement reports whether two generations carry the same blocks on
// the same pages and the manifest on the same pages.
func samePlacement(a, b *generationInfo) bool {
	if !slices.Equal(a.Manifests, b.Manifests) || len(a.Pages) != len(b.Pages) {
		return false
	}
	for url, refs := range a.Pages {
		if !slices.Equal(refs, b.Pages[url]) {
			return false
		}
	}
	return true
}

func segParams(s *segmentInfo) (erasure.Params, error) {
	return erasure.NewParams(s.Length, s.K, s.M, s.ShardSize)
}

// listingSegments returns the generation's listing segment, if any.
func (g *generationInfo) listingSegments() []segmentInfo {
	var out []segmentInfo
	for _, s := range g.Segments {
		if s.Kind == block.KindListing.String() {
			out = append(out, s)
		}
	}
	return out
}

// dropListing removes a listing segment and its blocks from the plan
// before the manifest is rebuilt (which may make a new one).
func (r *run) dropListing() {
	segs := r.gen.Segments[:0:0]
	for _, s := range r.gen.Segments {
		if s.Kind != block.KindListing.String() {
			segs = append(segs, s)
		}
	}
	r.gen.Segments = segs
	for url, refs := range r.gen.Pages {
		kept := refs[:0:0]
		for _, ref := range refs {
			if ref.Segment != codec.ListingSegment {
				kept = append(kept, ref)
			}
		}
		r.gen.Pages[url] = kept
	}
}

// oldBlocks lists the blocks of the kept previous generations whose
// segment versions the new generation does not carry anyway, with the
// pages they are on.
func (r *run) oldBlocks(current []segmentInfo) []placement.OldBlock {
	live := map[manifest.Digest]bool{}
	for _, s := range current {
		live[s.ID] = true
	}
	byRef := map[placement.OldRef]*placement.OldBlock{}
	var order []placement.OldRef
	for _, g := range r.byValue(r.previousGenerations()) {
		for _, url := range slices.Sorted(maps.Keys(g.Pages)) {
			for _, ref := range g.Pages[url] {
				seg := g.segment(ref.Segment)
				if seg == nil || live[seg.ID] {
					continue
				}
				key := placement.OldRef{SegmentID: seg.ID, Block: ref}
				if byRef[key] == nil {
					byRef[key] = &placement.OldBlock{Ref: key, Size: placement.BlockCommentBytes(len(seg.Name), seg.ShardSize)}
					order = append(order, key)
				}
				byRef[key].URLs = append(byRef[key].URLs, url)
			}
		}
	}
	out := make([]placement.OldBlock, 0, len(order))
	for _, k := range order {
		out = append(out, *byRef[k])
	}
	return out
}

// byValue orders kept generations by what their blocks are worth, most
// first, for the room pages have left: a generation held because a
// segment shrank since (the newer ones may have lost that data), then
// the restore point (the archives already hold the rest of it: the one
// generation whose blocks on the pages make it recoverable again), then
// newest first.
func (r *run) byValue(gens []generationInfo) []generationInfo {
	rp := ""
	if a := r.o.Archived; a != nil {
		rp = a.RestorePoint
	}
	rank := func(g generationInfo) int {
		return 2*boolRank(r.holds(g.ID)) + boolRank(rp != "" && g.ID.String() == rp)
	}
	out := slices.Clone(gens)
	slices.SortStableFunc(out, func(x, y generationInfo) int { return cmp.Compare(rank(y), rank(x)) })
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// keptGenerations counts, for each earlier generation kept, its blocks
// the plan still carries (old maps pages to the kept old blocks).
func (r *run) keptGenerations(old map[string][]placement.OldRef) []KeptGeneration {
	carried := map[placement.OldRef]bool{}
	for _, refs := range old {
		for _, ref := range refs {
			carried[ref] = true
		}
	}
	var out []KeptGeneration
	for _, g := range r.previousGenerations() {
		k := KeptGeneration{Generation: g.ID.String(), Held: r.holds(g.ID)}
		seen := map[placement.OldRef]bool{}
		for _, refs := range g.Pages {
			for _, ref := range refs {
				seg := g.segment(ref.Segment)
				if seg == nil {
					continue
				}
				key := placement.OldRef{SegmentID: seg.ID, Block: ref}
				if seen[key] {
					continue
				}
				seen[key] = true
				k.Blocks++
				if carried[key] || r.carriesSegment(seg.ID) {
					k.Carried++
				}
			}
		}
		out = append(out, k)
	}
	return out
}

// carriesSegment reports whether the current generation carries the
// segment version id (an unchanged segment: its blocks are the same).
func (r *run) carriesSegment(id manifest.Digest) bool {
	for _, s := range r.gen.Segments {
		if s.ID == id {
			return true
		}
	}
	return false
}

// maxKept bounds the earlier generations kept by evidence.
const maxKept = 16

// previousGenerations are the generations kept beside the current one,
// newest first (make-before-break), then the generations held because a
// segment shrank since (see checkShrink), whatever the rules below say.
func (r *run) previousGenerations() []generationInfo {
	out := slices.Clone(r.rotated())
	return append(out, r.heldGenerations(out)...)
}

// rotated are the earlier generations the rotation keeps. With
// Options.Archived: every earlier one down to the newest the archives
// hold enough of, none once that is the current one, all (up to 16)
// while the archives hold none, so that pages never stop carrying the
// last generation the archives could restore; without it, KeepPrevious
// of them. A plan counting on capture requests (Options.Requests) keeps
// only those newer than that restore point: the archives hold it, and
// the requests that follow confirm the new one within hours, so its
// blocks would only double the pages' weight meanwhile (until the next
// run, which may be a deploy weeks away). Options.KeepMaxAge drops the
// older ones in any case.
func (r *run) rotated() []generationInfo {
	gens := r.st.Generations
	if len(gens) > 0 && (r.gen.ID == gens[0].ID) {
		gens = gens[1:]
	}
	n := min(len(gens), r.o.KeepPrevious)
	if a := r.o.Archived; a != nil {
		n = min(len(gens), maxKept)
		if a.RestorePoint == r.gen.ID.String() {
			n = 0
		}
		for i, g := range gens[:n] {
			if g.ID.String() == a.RestorePoint {
				n = i + 1
				if r.o.Requests != nil {
					n = i
				}
				break
			}
		}
	}
	out := gens[:n]
	if r.o.KeepMaxAge > 0 {
		cut := r.o.Now().Add(-r.o.KeepMaxAge)
		for i, g := range out {
			if g.Time.Before(cut) {
				return out[:i]
			}
		}
	}
	return out
}
