package placement

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// ErrTooFewPages is wrapped by the error returned when the site has fewer
// carrier pages than one stripe of a new segment needs at the minimum
// redundancy (1 + ⌈ρ⌉ distinct pages). Place never lowers the redundancy
// by itself; NoRedundancy allows a single page.
var ErrTooFewPages = errors.New("too few carrier pages")

// BudgetError reports that the carrier pages lack room for the manifest or
// for a segment's blocks. Its message says what to change, with numbers,
// in neutral words ("the block size", "the page budget"): callers word
// hints in their own vocabulary (a flag, a configuration option) from the
// fields.
type BudgetError struct {
	// Segment is the segment that did not fit; "" when the root page has
	// no room for the manifest.
	Segment string
	// Fixed is set when Segment keeps parameters from an earlier
	// generation; the block budget cannot help it.
	Fixed bool
	// Pages is the number of carrier pages.
	Pages int
	// Blocks is the number of blocks of Segment at the minimum redundancy:
	// as planned for this site when planning got that far, else with
	// stripes of up to 256 blocks (its actual number when Fixed).
	Blocks int64
	// BlockBytes is what one of those blocks adds to a page (the manifest
	// comment when Segment is "").
	BlockBytes int
	// RoomBlocks is how many such blocks the carrier pages could take if
	// they carried nothing else.
	RoomBlocks int64
	// NeedBytes estimates what the whole backup adds to pages: the manifest
	// on the root and every segment's blocks at the minimum redundancy.
	NeedBytes int64
	// RoomBytes is the sum of the carriers' capacities (the root page's
	// when Segment is "").
	RoomBytes int64
	// MaxBlockBytes is the block budget z that was used.
	MaxBlockBytes int
	// OverLimit is set when the blocks would exceed MaxBlocks.
	OverLimit bool
	// SuggestedMaxBlockBytes is a block budget, a whole number of KiB, with
	// which Place succeeds on the same inputs, the closest to MaxBlockBytes
	// by ratio; 0 when none was found or the budget cannot help.
	SuggestedMaxBlockBytes int

	zMatters bool // Place should search for SuggestedMaxBlockBytes

	// Target is set when the plan aimed at a recoverability target
	// (Options.Target): a lower target, not a lower redundancy, needs
	// fewer blocks.
	Target bool
}

// Error says what did not fit and what to change.
func (e *BudgetError) Error() string {
	switch {
	case e.Segment == "":
		return fmt.Sprintf("the manifest comment needs %s but the root page has room for %s: raise the page budget or make the root page smaller",
			size(int64(e.BlockBytes)), size(e.RoomBytes))
	case e.Fixed:
		return fmt.Sprintf("segment %q keeps the parameters of an earlier generation, %d blocks of %s, but the %s have room for %d such blocks (%s in all; the backup needs at least %s): code the segment anew, raise the page budget, or add pages",
			e.Segment, e.Blocks, size(int64(e.BlockBytes)), carrierPages(e.Pages), e.RoomBlocks, size(e.RoomBytes), size(e.NeedBytes))
	case e.OverLimit:
		return fmt.Sprintf("segment %q needs %d blocks of %s, more than the limit of %d blocks per plan: %s",
			e.Segment, e.Blocks, size(int64(e.BlockBytes)), MaxBlocks, e.fixes())
	}
	return fmt.Sprintf("segment %q needs %d blocks of %s but the %s have room for %d such blocks (%s in all; the backup needs at least %s): %s",
		e.Segment, e.Blocks, size(int64(e.BlockBytes)), carrierPages(e.Pages), e.RoomBlocks, size(e.RoomBytes), size(e.NeedBytes), e.fixes())
}

// fixes lists the changes that may make the backup fit.
func (e *BudgetError) fixes() string {
	var fs []string
	if z := e.SuggestedMaxBlockBytes; z > 0 {
		verb := "raise"
		if z < e.MaxBlockBytes {
			verb = "lower"
		}
		fs = append(fs, fmt.Sprintf("%s the block size to %s", verb, exactSize(z)))
	}
	if e.NeedBytes > e.RoomBytes {
		fs = append(fs, "raise the page budget")
	}
	fs = append(fs, "add pages")
	switch {
	case e.Target:
		fs = append(fs, "lower the target")
	case e.SuggestedMaxBlockBytes == 0:
		fs = append(fs, "lower the redundancy")
	}
	fs = append(fs, "exclude files from the segment")
	return strings.Join(fs[:len(fs)-1], ", ") + ", or " + fs[len(fs)-1]
}

// manifestError reports a root page without room for the manifest.
func (st *state) manifestError() error {
	return &BudgetError{
		Pages:         len(st.pages),
		Blocks:        1,
		BlockBytes:    st.in.mbyte,
		RoomBlocks:    int64(st.pages[0].capacity / st.in.mbyte),
		NeedBytes:     int64(st.in.mbyte),
		RoomBytes:     int64(st.pages[0].capacity),
		MaxBlockBytes: st.z,
	}
}

// segmentError reports that segment sg did not fit.
func (st *state) segmentError(sg *segment) error {
	e := &BudgetError{Segment: sg.name, Fixed: sg.fixed, Pages: len(st.pages), MaxBlockBytes: st.z, zMatters: !sg.fixed, Target: st.in.target > 0}
	e.Blocks, e.BlockBytes = st.minimum(sg)
	need := float64(st.in.mbyte)
	for _, s := range st.segs {
		n, c := st.minimum(s)
		need += float64(n) * float64(c)
	}
	e.NeedBytes = int64(min(need, math.MaxInt64/2))
	var room, blocks float64
	for i := range st.pages {
		room += float64(st.pages[i].capacity)
		blocks += float64(st.pages[i].capacity / e.BlockBytes)
	}
	e.RoomBytes, e.RoomBlocks = int64(min(room, math.MaxInt64/2)), int64(min(blocks, math.MaxInt64/2))
	return e
}

// minimum returns the number of blocks of sg and the bytes each adds to a
// page: its parameters when they are set (fixed, or planned for this
// site), else its minimum parameters with stripes of up to 256 blocks. When
// even those exceed the format's stripe limit it estimates D·(1+ρ) blocks
// of the block budget.
func (st *state) minimum(sg *segment) (int64, int) {
	if sg.held != nil {
		return sg.params.TotalShards(), sg.cost
	}
	if p, ok := planWidth(sg.length, st.z, st.in.rho, erasure.MaxShards); ok {
		return p.TotalShards(), BlockCommentBytes(len(sg.name), p.ShardSize)
	}
	d := float64(ceilDiv(sg.length, int64(st.z)))
	return int64(min(d*(1+st.in.rho), math.MaxInt64/2)), BlockCommentBytes(len(sg.name), st.z)
}

// tooFewPages reports a site with fewer pages than one stripe needs.
func (st *state) tooFewPages(sg *segment) error {
	return fmt.Errorf("%w: segment %q needs stripes of at least %d blocks on distinct pages at redundancy %v, but the site has %s: add linked pages or lower the redundancy",
		ErrTooFewPages, sg.name, minWidth(st.in.rho), st.in.rho, carrierPages(len(st.pages)))
}

// suggest returns the block budget closest to in.z by ratio, among whole
// KiB values 1, 2, 3, 4, 6, 8, 12, … up to erasure.MaxShardSize, with which
// every stage that can fail succeeds; 0 if there is none.
func (in *input) suggest() int {
	for _, z := range candidates(in.z) {
		if newState(in, z).run(false) == nil {
			return z
		}
	}
	return 0
}

// candidates returns the budgets suggest tries, nearest to z first (by
// |log(c/z)|, the larger first on a tie), without z itself.
func candidates(z int) []int {
	var cs []int
	for v := 1 << 10; v <= erasure.MaxShardSize; v *= 2 {
		if v != z {
			cs = append(cs, v)
		}
		if w := v * 3; v >= 2<<10 && w/2 <= erasure.MaxShardSize && w/2 != z {
			cs = append(cs, w/2)
		}
	}
	dist := func(c int) float64 { return math.Abs(math.Log(float64(c) / float64(z))) }
	slices.SortFunc(cs, func(a, b int) int { return cmp.Or(cmp.Compare(dist(a), dist(b)), cmp.Compare(b, a)) })
	return cs
}

// carrierPages formats a number of carrier pages.
func carrierPages(n int) string {
	if n == 1 {
		return "1 carrier page"
	}
	return fmt.Sprintf("%d carrier pages", n)
}

// size formats a byte count for messages.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n < 1<<40:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f TiB", float64(n)/(1<<40))
}

// exactSize formats a block budget exactly.
func exactSize(z int) string {
	switch {
	case z%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", z>>20)
	case z%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", z>>10)
	}
	return fmt.Sprintf("%d bytes", z)
}

// overLimit reports that segment sg would take the plan over MaxBlocks
// blocks (or over the format's stripe limit).
func (st *state) overLimit(sg *segment) error {
	err := st.segmentError(sg)
	err.(*BudgetError).OverLimit = true
	return err
}
