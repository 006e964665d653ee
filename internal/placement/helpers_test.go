package placement

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

const (
	kiB = 1 << 10
	miB = 1 << 20
)

// site returns carriers: the root "/" and then, for each depth d ≥ 1,
// perDepth[d-1] pages "/d<d>/<i>/", all with the given capacity.
func site(capacity int, perDepth ...int) []Carrier {
	cs := []Carrier{{URL: "/", Depth: 0, Capacity: capacity}}
	for d, n := range perDepth {
		for i := range n {
			cs = append(cs, Carrier{URL: fmt.Sprintf("/d%d/%03d/", d+1, i), Depth: d + 1, Capacity: capacity})
		}
	}
	return cs
}

// mustPlace calls Place and checks the plan's invariants.
func mustPlace(t testing.TB, segs []Segment, cs []Carrier, opts Options, check ...func([]Segment, []Carrier, Options, *Plan) error) *Plan {
	t.Helper()
	pl, err := Place(segs, cs, opts)
	if err != nil {
		t.Fatalf("Place: %v", err)
	}
	checker := checkPlan
	if len(check) > 0 {
		checker = check[0]
	}
	if err := checker(segs, cs, opts, pl); err != nil {
		t.Fatalf("invalid plan: %v", err)
	}
	return pl
}

// checkPlan checks every invariant of a plan against its inputs and
// returns the first violation.
func checkPlan(segs []Segment, cs []Carrier, opts Options, pl *Plan) error {
	byURL := map[string]Carrier{}
	for _, c := range cs {
		byURL[c.URL] = c
	}
	if err := checkParams(segs, cs, opts, pl); err != nil {
		return err
	}
	if err := checkManifest(cs, opts, pl); err != nil {
		return err
	}
	used, err := checkBlocks(pl, byURL, opts.ManifestBytes)
	if err != nil {
		return err
	}
	// Replicas see the room left by old blocks only when those come first.
	if opts.OldBeforeSpare {
		if err := checkOldBlocks(opts, pl, byURL, used); err != nil {
			return err
		}
	}
	if err := checkReplicas(pl, cs, used); err != nil {
		return err
	}
	if !opts.OldBeforeSpare {
		if err := checkOldBlocks(opts, pl, byURL, used); err != nil {
			return err
		}
	}
	for u, n := range used {
		if n != pl.Bytes[u] || n > byURL[u].Capacity {
			return fmt.Errorf("page %s: %d bytes added (plan says %d), capacity %d", u, n, pl.Bytes[u], byURL[u].Capacity)
		}
	}
	if len(pl.Bytes) != len(used) {
		return fmt.Errorf("plan lists bytes for %d pages, %d pages get anything", len(pl.Bytes), len(used))
	}
	return nil
}

// checkParams checks the parameters: fixed ones unchanged, new ones
// following the planning rule.
func checkParams(segs []Segment, cs []Carrier, opts Options, pl *Plan) error {
	if len(pl.Params) != len(segs) {
		return fmt.Errorf("%d params for %d segments", len(pl.Params), len(segs))
	}
	z := max(opts.MaxBlockBytes, 0)
	if z == 0 {
		z = DefaultMaxBlockBytes
	}
	rho := normRho(opts.Redundancy)
	for _, s := range segs {
		p, ok := pl.Params[s.Name]
		switch {
		case !ok:
			return fmt.Errorf("no params for %q", s.Name)
		case p.Validate() != nil || p.Length != s.Length:
			return fmt.Errorf("segment %q: bad params %v", s.Name, p)
		case s.Fixed != nil && p != *s.Fixed:
			return fmt.Errorf("fixed segment %q: params %v, want %v", s.Name, p, *s.Fixed)
		case s.Fixed == nil && (p.ShardSize > z || p.M < erasure.Parity(p.K, rho) || p.Shards() > len(cs)):
			return fmt.Errorf("new segment %q: params %v break the rule (z=%d ρ=%v, %d pages)", s.Name, p, z, rho, len(cs))
		case s.Fixed == nil && int64(p.K)*int64(p.Stripes()) < ceilDiv(s.Length, int64(z)):
			return fmt.Errorf("new segment %q: %v has fewer than ⌈L/z⌉ data shards", s.Name, p)
		}
	}
	return nil
}

func normRho(rho float64) float64 {
	switch rho {
	case 0:
		return DefaultRedundancy
	case NoRedundancy:
		return 0
	}
	return rho
}

// checkManifest checks that the root and exactly the depth-1 pages with
// room carry the manifest.
func checkManifest(cs []Carrier, opts Options, pl *Plan) error {
	want := map[string]bool{}
	for _, c := range cs {
		if c.Depth <= 1 && c.Capacity >= opts.ManifestBytes {
			want[c.URL] = true
		}
	}
	got := map[string]bool{}
	for _, u := range pl.Manifest {
		got[u] = true
	}
	if len(got) != len(want) || len(got) != len(pl.Manifest) {
		return fmt.Errorf("manifest on %v, want the %d pages of depth ≤ 1 with room", pl.Manifest, len(want))
	}
	for u := range want {
		if !got[u] {
			return fmt.Errorf("manifest missing on %s", u)
		}
	}
	if len(pl.Manifest) == 0 || byDepth(cs, pl.Manifest[0]) != 0 {
		return fmt.Errorf("manifest list %v does not start with the root", pl.Manifest)
	}
	return nil
}

func byDepth(cs []Carrier, u string) int {
	for _, c := range cs {
		if c.URL == u {
			return c.Depth
		}
	}
	return -1
}

// checkBlocks checks distinctness, coverage and completeness and returns
// the bytes of manifest and blocks per page.
func checkBlocks(pl *Plan, byURL map[string]Carrier, manifestBytes int) (map[string]int, error) {
	used := map[string]int{}
	for _, u := range pl.Manifest {
		used[u] += manifestBytes
	}
	cov := map[manifest.BlockRef]int{}
	for u, refs := range pl.Pages {
		if _, ok := byURL[u]; !ok {
			return nil, fmt.Errorf("blocks on %s, which is not a carrier", u)
		}
		stripes := map[manifest.BlockRef]bool{}
		for _, r := range refs {
			p, ok := pl.Params[r.Segment]
			if !ok || int(r.Stripe) >= p.Stripes() || int(r.Shard) >= p.Shards() {
				return nil, fmt.Errorf("page %s carries %v, outside the segment %v", u, r, p)
			}
			key := manifest.BlockRef{Segment: r.Segment, Stripe: r.Stripe}
			if stripes[key] {
				return nil, fmt.Errorf("page %s carries two blocks of stripe %s/%d: %v", u, r.Segment, r.Stripe, refs)
			}
			stripes[key] = true
			cov[r]++
			used[u] += BlockCommentBytes(len(r.Segment), p.ShardSize)
		}
	}
	var total int
	for name, p := range pl.Params {
		for j := range p.Stripes() {
			for sh := range p.Shards() {
				r := blockRef(name, j, sh)
				if cov[r] < 1 || cov[r] != pl.Coverage[r] {
					return nil, fmt.Errorf("block %v on %d pages, coverage says %d", r, cov[r], pl.Coverage[r])
				}
				total++
			}
		}
	}
	if len(pl.Coverage) != total {
		return nil, fmt.Errorf("coverage lists %d blocks, the segments have %d", len(pl.Coverage), total)
	}
	return used, nil
}

// checkReplicas checks that every page without blocks lacked room for any
// block after the blocks were placed (old blocks come later).
func checkReplicas(pl *Plan, cs []Carrier, used map[string]int) error {
	smallest := -1
	for name, p := range pl.Params {
		if c := BlockCommentBytes(len(name), p.ShardSize); smallest < 0 || c < smallest {
			smallest = c
		}
	}
	for _, c := range cs {
		if _, ok := pl.Pages[c.URL]; !ok && smallest >= 0 && c.Capacity-used[c.URL] >= smallest {
			return fmt.Errorf("page %s carries no block but had %d bytes free (smallest block %d)", c.URL, c.Capacity-used[c.URL], smallest)
		}
	}
	return nil
}

// checkOldBlocks checks old blocks: only on listed carriers, once per page;
// it adds their bytes to used.
func checkOldBlocks(opts Options, pl *Plan, byURL map[string]Carrier, used map[string]int) error {
	listed := map[OldRef]map[string]int{}
	for _, o := range opts.Old {
		m := map[string]int{}
		for _, u := range o.URLs {
			m[u] = o.Size
		}
		listed[o.Ref] = m
	}
	for u, refs := range pl.Old {
		seen := map[OldRef]bool{}
		for _, r := range refs {
			size, ok := listed[r][u]
			if !ok || seen[r] {
				return fmt.Errorf("old block %v on %s: not listed there, or twice", r, u)
			}
			seen[r] = true
			used[u] += size
		}
		if _, ok := byURL[u]; !ok {
			return fmt.Errorf("old blocks on %s, which is not a carrier", u)
		}
	}
	return nil
}

// randomInputs returns a random small site and segments.
func randomInputs(r *rand.Rand) ([]Segment, []Carrier, Options) {
	pages := 1 + r.IntN(40)
	cs := []Carrier{{URL: "/", Capacity: r.IntN(400 * kiB)}}
	for i := 1; i < pages; i++ {
		cs = append(cs, Carrier{URL: fmt.Sprintf("/p%d/", i), Depth: 1 + r.IntN(4), Capacity: r.IntN(300 * kiB)})
	}
	opts := Options{
		MaxBlockBytes:  1 + r.IntN(64*kiB),
		Redundancy:     []float64{0, NoRedundancy, 0.5, 1, 2, 0.25}[r.IntN(6)],
		ManifestBytes:  1 + r.IntN(16*kiB),
		OldBeforeSpare: r.IntN(2) == 0,
	}
	var segs []Segment
	for i := range r.IntN(4) {
		s := Segment{Name: fmt.Sprintf("s%d", i), Length: r.Int64N(int64(r.IntN(3)+1) * 300 * kiB)}
		if r.IntN(3) == 0 {
			s = randomFixed(r, s, cs)
		}
		segs = append(segs, s)
	}
	for i := range r.IntN(6) {
		opts.Old = append(opts.Old, OldBlock{
			Ref:  OldRef{SegmentID: manifest.Digest{byte(i)}, Block: blockRef("old", 0, i)},
			Size: 1 + r.IntN(40*kiB),
			URLs: []string{cs[r.IntN(len(cs))].URL, cs[r.IntN(len(cs))].URL, "/gone/"},
		})
	}
	return segs, cs, opts
}

// randomFixed gives s random fixed parameters and a random previous
// placement, partly on pages that no longer exist.
func randomFixed(r *rand.Rand, s Segment, cs []Carrier) Segment {
	k := 1 + r.IntN(6)
	p, err := erasure.NewParams(s.Length, k, r.IntN(4), int(ceilDiv(s.Length, int64(k*(1+r.IntN(3))))))
	if err != nil {
		panic(err)
	}
	s.Fixed = &p
	s.Previous = map[manifest.BlockRef][]string{}
	for j := range p.Stripes() {
		for sh := range p.Shards() {
			if r.IntN(4) > 0 {
				s.Previous[blockRef(s.Name, j, sh)] = []string{cs[r.IntN(len(cs))].URL, "/gone/"}
			}
		}
	}
	return s
}
