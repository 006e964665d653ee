package placement

import (
	"errors"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

const (
	// DefaultMaxBlockBytes is the block budget z (shard bytes per block)
	// used when Options.MaxBlockBytes is zero: 48 KiB, which armors to a
	// comment of about 65 KiB.
	DefaultMaxBlockBytes = 48 << 10

	// DefaultRedundancy is the minimum number of parity blocks per data
	// block used when Options.Redundancy is zero.
	DefaultRedundancy = 1.0

	// NoRedundancy, as Options.Redundancy, asks for no minimum parity
	// (ρ = 0). Spare pages may still add parity blocks.
	NoRedundancy = -1.0

	// MaxBlocks bounds the blocks of one plan (every stripe's k+m blocks of
	// every segment, before parity raised by spare pages and replicas), so
	// that planning a huge segment with a tiny block budget cannot exhaust
	// memory. 2^22 blocks of 48 KiB are 192 GiB.
	MaxBlocks = 1 << 22
)

// Carrier is a page that may carry Lazarus comments.
type Carrier struct {
	URL      string // page URL or path, unique, e.g. "/" or "/about/"
	Depth    int    // link hops from the root page; exactly one carrier has depth 0
	Capacity int    // bytes that may be added to the page: the smaller of the page budget and the truncation limit minus the page's size without Lazarus comments
}

// Segment is one segment of the generation being planned.
type Segment struct {
	Name   string // segment name (FORMAT §6), unique
	Length int64  // exact ciphertext length in bytes

	// Fixed, when not nil, holds the parameters of an unchanged segment
	// whose blocks already exist; Place keeps them. Fixed.Length must
	// equal Length.
	Fixed *erasure.Params

	// Previous says, for a Fixed segment, which pages carried each of its
	// blocks last time (primary copy and replicas). Place keeps the blocks
	// there when those pages are still carriers with room, so that an
	// unchanged segment changes no page. Must be nil when Fixed is nil.
	Previous map[manifest.BlockRef][]string
}

// OldRef names a block of an earlier generation: the segment version it
// belongs to (its segment id) and its place in that version.
type OldRef struct {
	SegmentID manifest.Digest
	Block     manifest.BlockRef
}

// OldBlock is a block of an earlier generation that pages still carry.
type OldBlock struct {
	Ref  OldRef
	Size int      // bytes its comment adds to a page, newline included
	URLs []string // pages that carry it now, in order of preference
}

// Options tune Place. The zero value gives the defaults, except
// ManifestBytes, which is required.
type Options struct {
	// MaxBlockBytes is the block budget z: the most shard bytes per block
	// of a new segment. Defaults to DefaultMaxBlockBytes (48 KiB); at most
	// erasure.MaxShardSize.
	MaxBlockBytes int

	// Redundancy is ρ, the minimum number of parity blocks per data block
	// of a new segment (m = ⌈k·ρ⌉). Zero selects DefaultRedundancy (1.0);
	// NoRedundancy selects ρ = 0. Other negative values are refused.
	Redundancy float64

	// ManifestBytes is the size of the manifest comment plus its newline
	// (see CommentBytes); every manifest carrier takes it. Must be positive.
	ManifestBytes int

	// Old lists blocks of earlier generations to keep on their pages where
	// room remains after everything else (make-before-break). Refs must be
	// unique. Defaults to none.
	Old []OldBlock

	// OldBeforeSpare keeps Old blocks before spare room raises the parity
	// of new segments and before replicas, so that the previous generation
	// stays whole while the new one gets archived. Defaults to false: old
	// blocks get only the room left at the end.
	OldBeforeSpare bool

	// Target, when set (0 < Target < 1), makes a target plan: each new
	// segment gets the block size and the width k+m that reach this
	// recoverability under the capture model with the fewest bytes, and
	// the manifest goes on as few shallow pages as reach it. With NoSpare
	// nothing more is added (no parity raised by spare room, no
	// replicas): the page budget is a cap, not a target; without it,
	// spare room is then filled as in a redundancy plan (stages 6–9), on
	// top of what the target needs. Redundancy is then ignored. When the
	// site cannot reach the target, the plan gets the most recoverability
	// the pages allow (Plan.Recoverability says how much). Zero keeps the
	// redundancy plan described in the package documentation.
	Target float64

	// Capture gives pages (by URL) the probability that the archives keep
	// their current version, as learned by lazarus status; pages it does
	// not name get DefaultCapture. A target plan puts blocks on the most
	// kept pages first; every plan's Recoverability is computed with it.
	Capture map[string]float64

	// NoSpare leaves spare room unused: no parity is raised by it and no
	// replicas are added (a target plan's fewest bytes, or a fixed parity
	// ratio).
	NoSpare bool
}

// Plan says which page carries what.
type Plan struct {
	// Params holds every segment's parameters; Fixed segments' are
	// unchanged.
	Params map[string]erasure.Params

	// Pages maps each page that carries blocks of this generation to those
	// blocks (primary copies and replicas), sorted by segment name, stripe
	// and shard.
	Pages map[string][]manifest.BlockRef

	// Old maps each page that keeps blocks of earlier generations to them,
	// sorted by segment id, segment name, stripe and shard.
	Old map[string][]OldRef

	// Manifest lists the pages that carry the manifest, the root first,
	// then depth-1 pages by URL.
	Manifest []string

	// Coverage counts the pages carrying each block of this generation;
	// every block of every stripe has at least one.
	Coverage map[manifest.BlockRef]int

	// Bytes is how many bytes the plan adds to each page that gets
	// anything: manifest, blocks and old blocks. It never exceeds the
	// page's Capacity.
	Bytes map[string]int

	// Recoverability is a lower bound on the probability, under the
	// capture model (each page kept independently with its Options.Capture
	// probability), that the archives keep a manifest copy and k blocks of
	// every stripe of this generation: the product over the manifest and
	// the stripes, which ignores that stripes sharing pages help each
	// other (on a few pages far below the truth: 3 pages each carrying
	// everything give 0.875³ for 0.875).
	Recoverability float64
}

// Place chooses parameters for the new segments and assigns every block to
// carrier pages, following the rules in the package documentation. It
// returns an error wrapping ErrInvalid for unusable inputs, ErrTooFewPages
// when the site has fewer pages than one stripe needs, and a *BudgetError
// when the pages lack room.
func Place(segs []Segment, carriers []Carrier, opts Options) (*Plan, error) {
	in, err := newInput(segs, carriers, opts)
	if err != nil {
		return nil, err
	}
	if in.target > 0 {
		return in.placeTarget()
	}
	st := newState(in, in.z)
	if err := st.run(true); err != nil {
		var be *BudgetError
		if errors.As(err, &be) && be.zMatters {
			be.SuggestedMaxBlockBytes = in.suggest()
		}
		return nil, err
	}
	return st.plan(), nil
}

// placeTarget makes a target plan. When the pages cannot reach the target,
// aiming at it makes the first (largest) segments take room the others
// then lack, so the plan can end far below what the pages allow, or not
// fit at all; so the plan is made again for lower targets (the failure
// budget ten, a hundred, a thousand times larger, and 1/2) and the most
// recoverable of them is kept (the fewest bytes among equals). Only when
// none fits is the first error returned.
func (in *input) placeTarget() (*Plan, error) {
	var best *Plan
	var first error
	for i, t := range lowerTargets(in.target) {
		try := *in
		try.target = t
		st := newState(&try, in.z)
		if err := st.run(true); err != nil {
			if i == 0 {
				first = err
			}
			continue
		}
		pl := st.plan()
		if i == 0 && pl.Recoverability >= in.target {
			return pl, nil
		}
		if best == nil || pl.Recoverability > best.Recoverability ||
			pl.Recoverability == best.Recoverability && totalBytes(pl) < totalBytes(best) {
			best = pl
		}
	}
	if best != nil {
		return best, nil
	}
	return nil, first
}

// lowerTargets returns t, then targets with 10, 100 and 1000 times its
// failure budget, and 1/2, each below the one before.
func lowerTargets(t float64) []float64 {
	out := []float64{t}
	for _, f := range []float64{10, 100, 1000} {
		if l := 1 - (1-t)*f; l > 0.5 && l < out[len(out)-1] {
			out = append(out, l)
		}
	}
	if out[len(out)-1] > 0.5 {
		out = append(out, 0.5)
	}
	return out
}

func totalBytes(pl *Plan) int64 {
	var n int64
	for _, b := range pl.Bytes {
		n += int64(b)
	}
	return n
}

// run executes the placement stages in order. With full false it stops
// after the last stage that can fail, which is all a feasibility trial
// needs.
func (st *state) run(full bool) error {
	if err := st.placeManifest(); err != nil {
		return err
	}
	st.keepFixed(true)
	st.buildHeaps()
	if err := st.placeMissingFixed(); err != nil {
		return err
	}
	if st.in.target > 0 {
		if err := st.placeTarget(); err != nil || !full {
			return err
		}
	} else {
		if err := st.planNew(); err != nil {
			return err
		}
		if err := st.placeNew(); err != nil || !full {
			return err
		}
	}
	st.keepFixed(false)
	if st.in.oldFirst || st.in.noSpare {
		st.keepOld()
	}
	if !st.in.noSpare {
		st.raise()
		st.replicate()
	}
	if !st.in.oldFirst && !st.in.noSpare {
		st.keepOld()
	}
	return nil
}
