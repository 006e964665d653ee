package placement

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// ErrInvalid is wrapped by every error that rejects Place's inputs.
var ErrInvalid = errors.New("invalid placement input")

// input is Place's validated and normalized input.
type input struct {
	segs  []Segment
	pages []page           // template: sorted by depth, then URL
	byURL map[string]int32 // URL → index into pages
	z     int              // block budget
	rho   float64          // minimum redundancy
	mbyte int              // manifest comment bytes
	old   []OldBlock
	// oldFirst keeps old blocks before raising parity and replicating.
	oldFirst bool
	// target is Options.Target (0: a redundancy plan); noSpare is
	// Options.NoSpare.
	target  float64
	noSpare bool
	// capture is each page's keep probability, by index into pages.
	capture []float64
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func newInput(segs []Segment, carriers []Carrier, opts Options) (*input, error) {
	in := &input{segs: segs, old: opts.Old, mbyte: opts.ManifestBytes, oldFirst: opts.OldBeforeSpare}
	if err := in.setOptions(opts); err != nil {
		return nil, err
	}
	if err := in.setCarriers(carriers); err != nil {
		return nil, err
	}
	if err := checkSegments(segs); err != nil {
		return nil, err
	}
	if err := checkOld(opts.Old); err != nil {
		return nil, err
	}
	if err := in.setCapture(opts.Capture); err != nil {
		return nil, err
	}
	return in, nil
}

// setCapture gives every page its keep probability.
func (in *input) setCapture(c map[string]float64) error {
	in.capture = make([]float64, len(in.pages))
	for i := range in.pages {
		in.capture[i] = DefaultCapture
	}
	for u, p := range c {
		if !(p >= 0 && p <= 1) {
			return invalidf("capture probability %v of %q is outside [0, 1]", p, u)
		}
		if i := in.lookup(u); i >= 0 {
			in.capture[i] = p
		}
	}
	return nil
}

func (in *input) setOptions(opts Options) error {
	in.z = cmp.Or(opts.MaxBlockBytes, DefaultMaxBlockBytes)
	if in.z < 1 || in.z > erasure.MaxShardSize {
		return invalidf("max block bytes %d outside [1, %d]", opts.MaxBlockBytes, erasure.MaxShardSize)
	}
	switch rho := opts.Redundancy; {
	case rho == 0:
		in.rho = DefaultRedundancy
	case rho == NoRedundancy:
		in.rho = 0
	case math.IsNaN(rho) || math.IsInf(rho, 0) || rho < 0:
		return invalidf("redundancy %v is not a finite number ≥ 0 (or NoRedundancy)", rho)
	case minWidth(rho) > erasure.MaxShards:
		return invalidf("redundancy %v leaves no room for a data block in %d blocks per stripe", rho, erasure.MaxShards)
	default:
		in.rho = rho
	}
	switch t := opts.Target; {
	case t == 0:
	case !(t > 0 && t < 1):
		return invalidf("target %v is outside (0, 1)", t)
	default:
		in.target = t
	}
	in.noSpare = opts.NoSpare
	if opts.ManifestBytes < 1 {
		return invalidf("manifest bytes %d is not positive", opts.ManifestBytes)
	}
	return nil
}

// setCarriers checks the carriers and sorts them by depth, then URL.
func (in *input) setCarriers(cs []Carrier) error {
	if len(cs) > math.MaxInt32 {
		return invalidf("%d carriers are too many", len(cs))
	}
	in.pages = make([]page, len(cs))
	roots := 0
	for i, c := range cs {
		switch {
		case c.URL == "":
			return invalidf("carrier %d has an empty URL", i)
		case c.Depth < 0:
			return invalidf("carrier %q has negative depth %d", c.URL, c.Depth)
		case c.Capacity < 0:
			return invalidf("carrier %q has negative capacity %d", c.URL, c.Capacity)
		}
		if c.Depth == 0 {
			roots++
		}
		in.pages[i] = page{url: c.URL, depth: c.Depth, capacity: c.Capacity}
	}
	if roots != 1 {
		return invalidf("%d carriers have depth 0; exactly one root page is needed", roots)
	}
	slices.SortFunc(in.pages, func(a, b page) int {
		return cmp.Or(cmp.Compare(a.depth, b.depth), cmp.Compare(a.url, b.url))
	})
	in.byURL = make(map[string]int32, len(cs))
	for i := range in.pages {
		if _, dup := in.byURL[in.pages[i].url]; dup {
			return invalidf("carrier %q is listed twice", in.pages[i].url)
		}
		in.byURL[in.pages[i].url] = int32(i)
	}
	return nil
}

func checkSegments(segs []Segment) error {
	seen := make(map[string]bool, len(segs))
	for _, s := range segs {
		if err := block.ValidateName(s.Name); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if seen[s.Name] {
			return invalidf("segment %q is listed twice", s.Name)
		}
		seen[s.Name] = true
		if s.Length < 0 {
			return invalidf("segment %q has negative length %d", s.Name, s.Length)
		}
		if err := checkFixed(s); err != nil {
			return err
		}
	}
	return nil
}

// checkFixed checks a segment's fixed parameters and previous placement.
func checkFixed(s Segment) error {
	if s.Fixed == nil {
		if s.Previous != nil {
			return invalidf("segment %q has a previous placement but no fixed parameters", s.Name)
		}
		return nil
	}
	p := *s.Fixed
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: segment %q: %w", ErrInvalid, s.Name, err)
	}
	if p.Length != s.Length {
		return invalidf("segment %q has length %d but fixed parameters for %d bytes", s.Name, s.Length, p.Length)
	}
	if p.TotalShards() > MaxBlocks {
		return invalidf("segment %q has %d blocks, over the limit of %d", s.Name, p.TotalShards(), MaxBlocks)
	}
	for ref := range s.Previous {
		if ref.Segment != s.Name || int64(ref.Stripe) >= int64(p.Stripes()) || int(ref.Shard) >= p.Shards() {
			return invalidf("segment %q (%v): previous placement names block %v outside it", s.Name, p, ref)
		}
	}
	return nil
}

func checkOld(old []OldBlock) error {
	seen := make(map[OldRef]bool, len(old))
	for _, o := range old {
		if err := block.ValidateName(o.Ref.Block.Segment); err != nil {
			return fmt.Errorf("%w: old block: %w", ErrInvalid, err)
		}
		if o.Size < 1 {
			return invalidf("old block %v has size %d", o.Ref.Block, o.Size)
		}
		if seen[o.Ref] {
			return invalidf("old block %v of segment version %v is listed twice", o.Ref.Block, o.Ref.SegmentID)
		}
		seen[o.Ref] = true
	}
	return nil
}

// lookup returns the index of the carrier with the given URL, or -1.
func (in *input) lookup(url string) int32 {
	if i, ok := in.byURL[url]; ok {
		return i
	}
	return -1
}

// blockRef returns the public name of shard sh of stripe j of segment s.
func blockRef(name string, j int, sh int) manifest.BlockRef {
	return manifest.BlockRef{Segment: name, Stripe: uint32(j), Shard: uint16(sh)}
}
