package assure

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// ErrInvalid is wrapped by every error about a bad Site, Options or
// argument.
var ErrInvalid = errors.New("invalid input")

// Site is everything the model needs to know about one site's newest
// generation and its archives.
type Site struct {
	// Now is the time the projection starts from (t = 0). Captures after
	// Now are not counted. Required.
	Now time.Time
	// Pages are the carrier pages of the newest generation (and any other
	// page whose captures should inform the depth pools), each URL once.
	Pages []Page
	// Segments are the generation's segments: data segments make up the
	// generation; a listing segment is reported on its own.
	Segments []Segment
	// Archived lists, per archive name, the blocks of the newest
	// generation already found in that archive's copies. They count as
	// certain, whatever page they came from.
	Archived map[string][]manifest.BlockRef
	// Rotations are the times the site changed its pages' blocks (new
	// generations). Intervals between captures that contain one are not
	// counted as visible changes when estimating change rates.
	Rotations []time.Time
}

// Page is one page URL of the site.
type Page struct {
	URL   string
	Depth int // link hops from the root page (the root is 0)
	// Since is when the page started being served; captures before it
	// are not counted and its observation window starts there. Zero: it
	// was served before the window began.
	Since time.Time
	// Notice reports that the page carries a visible line that changes
	// whenever its blocks do (the injector's notice), so archives that
	// ignore comment-only changes still store its new blocks on capture.
	Notice bool
	// Blocks are the newest generation's blocks this page serves.
	Blocks []manifest.BlockRef
	// Captures are, per archive name, the page URL's captures: time and,
	// when the listing gives it, the payload digest (any encoding, compared
	// only for equality, only between captures of one archive).
	Captures map[string][]Capture
}

// Capture is one archived copy of a page.
type Capture struct {
	Time   time.Time
	Digest string // payload digest; "" when unknown
}

// Segment is one segment of the generation, as the manifest describes it.
type Segment struct {
	Name    string
	K, M    int  // data and parity shards per stripe: any K of K+M rebuild it
	Stripes int  // stripes in the segment
	Listing bool // the listing segment (not part of the generation's data)
}

// SegmentOf converts a manifest segment.
func SegmentOf(s manifest.Segment) Segment {
	return Segment{Name: s.Name, K: s.K, M: s.M, Stripes: s.Stripes, Listing: s.Kind == "listing"}
}

// validate checks the site's structure; references between pages, blocks
// and segments are checked when the block index is built.
func (s *Site) validate() error {
	if s.Now.IsZero() {
		return fmt.Errorf("%w: Site.Now is zero", ErrInvalid)
	}
	if len(s.Segments) == 0 {
		return fmt.Errorf("%w: no segments", ErrInvalid)
	}
	seen := map[string]bool{}
	data := false
	for _, g := range s.Segments {
		if err := g.validate(); err != nil {
			return err
		}
		if seen[g.Name] {
			return fmt.Errorf("%w: segment %q listed twice", ErrInvalid, g.Name)
		}
		seen[g.Name] = true
		data = data || !g.Listing
	}
	if !data {
		return fmt.Errorf("%w: no data segment", ErrInvalid)
	}
	urls := map[string]bool{}
	for _, p := range s.Pages {
		switch {
		case p.URL == "":
			return fmt.Errorf("%w: page with empty URL", ErrInvalid)
		case urls[p.URL]:
			return fmt.Errorf("%w: page %q listed twice", ErrInvalid, p.URL)
		case p.Depth < 0:
			return fmt.Errorf("%w: page %q: depth %d is negative", ErrInvalid, p.URL, p.Depth)
		}
		urls[p.URL] = true
		for a := range p.Captures {
			if a == "" {
				return fmt.Errorf("%w: page %q: captures of an unnamed archive", ErrInvalid, p.URL)
			}
		}
	}
	for a := range s.Archived {
		if a == "" {
			return fmt.Errorf("%w: archived blocks of an unnamed archive", ErrInvalid)
		}
	}
	return nil
}

// validate checks one segment's parameters.
func (g Segment) validate() error {
	switch {
	case g.Name == "":
		return fmt.Errorf("%w: segment with empty name", ErrInvalid)
	case g.K < 1 || g.M < 0 || g.K+g.M > math.MaxUint16+1:
		return fmt.Errorf("%w: segment %q: k=%d, m=%d", ErrInvalid, g.Name, g.K, g.M)
	case g.Stripes < 1:
		return fmt.Errorf("%w: segment %q: %d stripes", ErrInvalid, g.Name, g.Stripes)
	}
	return nil
}
