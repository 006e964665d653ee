package placement

import (
	"errors"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"math"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

func TestPlaceTooFewPages(t *testing.T) {
	segs := []Segment{{Name: "app", Length: 100 * kiB}}
	// One page cannot hold a stripe with parity: an error, never silently
	// less redundancy.
	_, err := Place(segs, site(miB), Options{ManifestBytes: manifestSize})
	if !errors.Is(err, ErrTooFewPages) || !strings.Contains(err.Error(), "1 carrier page") {
		t.Errorf("one page at ρ = 1: %v, want ErrTooFewPages", err)
	}
	// ρ = 2 needs three pages.
	_, err = Place(segs, site(miB, 1), Options{ManifestBytes: manifestSize, Redundancy: 2})
	if !errors.Is(err, ErrTooFewPages) {
		t.Errorf("two pages at ρ = 2: %v, want ErrTooFewPages", err)
	}
	// Without redundancy one page carries every block, one per stripe.
	pl := mustPlace(t, segs, site(miB), Options{ManifestBytes: manifestSize, Redundancy: NoRedundancy})
	if p := pl.Params["app"]; p.K != 1 || p.M != 0 || p.Stripes() != 3 {
		t.Errorf("one page without redundancy: %v, want 3 stripes of k=1 m=0", p)
	}
	// No new segment: no stripe to build, no error.
	mustPlace(t, nil, site(miB), Options{ManifestBytes: manifestSize})
}

// TestBudgetErrorSuggestsLargerBlocks: 20 pages with room for one 48 KiB
// block each (two do not fit) cannot take 14+14 blocks, but 10+10 blocks
// of 64 KiB fit; the room in bytes is enough, so the page budget is not
// blamed.
func TestBudgetErrorSuggestsLargerBlocks(t *testing.T) {
	cs := site(100*kiB, 19)
	segs := []Segment{{Name: "app", Length: 600 * kiB}}
	opts := Options{ManifestBytes: manifestSize}
	be := budgetError(t, segs, cs, opts)
	if be.Segment != "app" || be.Fixed || be.Pages != 20 || be.SuggestedMaxBlockBytes != 64*kiB {
		t.Errorf("error %+v, want segment app on 20 pages, suggesting 64 KiB", be)
	}
	msg := be.Error()
	for _, want := range []string{`segment "app"`, "20 carrier pages", "raise the block size to 64 KiB", "add pages", "exclude files"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "page budget") || strings.Contains(msg, "redundancy") {
		t.Errorf("message %q blames the page budget or redundancy, but a block budget fits", msg)
	}
	opts.MaxBlockBytes = be.SuggestedMaxBlockBytes
	mustPlace(t, segs, cs, opts)
}

// TestBudgetErrorCapacity: the pages have less room than the backup
// needs, whatever the block size: the message names the page budget.
func TestBudgetErrorCapacity(t *testing.T) {
	cs := site(100*kiB, 11)
	segs := []Segment{{Name: "app", Length: 2 * miB}}
	be := budgetError(t, segs, cs, Options{ManifestBytes: manifestSize})
	if be.SuggestedMaxBlockBytes != 0 || be.NeedBytes <= be.RoomBytes || be.RoomBytes != 12*100*kiB {
		t.Errorf("error %+v, want no suggestion and need > room = 1200 KiB", be)
	}
	msg := be.Error()
	for _, want := range []string{"raise the page budget", "lower the redundancy", "1.2 MiB in all", "12 carrier pages"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestBudgetErrorFixed: a fixed segment wider than the site fails and the
// message says so; the block budget cannot help.
func TestBudgetErrorFixed(t *testing.T) {
	p, err := erasure.NewParams(8*kiB, 4, 4, 2*kiB)
	if err != nil {
		t.Fatal(err)
	}
	segs := []Segment{{Name: "app", Length: 8 * kiB, Fixed: &p}}
	be := budgetError(t, segs, site(miB, 4), Options{ManifestBytes: manifestSize})
	if !be.Fixed || be.Blocks != 8 || be.SuggestedMaxBlockBytes != 0 || !strings.Contains(be.Error(), "code the segment anew") {
		t.Errorf("error %v (%+v), want a fixed-segment error for 8 blocks", be, be)
	}
}

// TestBudgetErrorTooManyBlocks: a huge segment with tiny blocks exceeds
// MaxBlocks before anything is allocated. Budgets of 512 KiB and more would
// stay within the limit (2^40 bytes in 2^14 stripes of 128+128 blocks),
// but pages of 100 KiB cannot take such blocks, so nothing is suggested
// (and every trial fails fast).
func TestBudgetErrorTooManyBlocks(t *testing.T) {
	segs := []Segment{{Name: "big", Length: 1 << 40}}
	be := budgetError(t, segs, site(100*kiB, 300), Options{ManifestBytes: manifestSize, MaxBlockBytes: 1000})
	if !be.OverLimit || be.SuggestedMaxBlockBytes != 0 || be.Blocks <= MaxBlocks {
		t.Errorf("error %+v, want over MaxBlocks without a suggestion", be)
	}
	if msg := be.Error(); !strings.Contains(msg, "limit of 4194304 blocks") {
		t.Errorf("message %q lacks the limit", msg)
	}
}

// TestErrorsNameNoFlag: every message that says what to change speaks of
// the block size, the page budget and the redundancy, never of one
// caller's spelling (a command-line flag, a Caddyfile option).
func TestErrorsNameNoFlag(t *testing.T) {
	fixed, err := erasure.NewParams(8*kiB, 4, 4, 2*kiB)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		segs []Segment
		cs   []Carrier
		opts Options
	}{
		"larger blocks fit": {[]Segment{{Name: "app", Length: 600 * kiB}}, site(100*kiB, 19), Options{ManifestBytes: manifestSize}},
		"too little room":   {[]Segment{{Name: "app", Length: 2 * miB}}, site(100*kiB, 11), Options{ManifestBytes: manifestSize}},
		"fixed segment":     {[]Segment{{Name: "app", Length: 8 * kiB, Fixed: &fixed}}, site(miB, 4), Options{ManifestBytes: manifestSize}},
		"no manifest room":  {nil, site(100, 3), Options{ManifestBytes: manifestSize}},
		"too few pages":     {[]Segment{{Name: "app", Length: 100 * kiB}}, site(miB), Options{ManifestBytes: manifestSize}},
	}
	for name, c := range cases {
		_, err := Place(c.segs, c.cs, c.opts)
		if err == nil {
			t.Errorf("%s: placed", name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "--") {
			t.Errorf("%s: message %q names a flag", name, msg)
		}
	}
}

func budgetError(t *testing.T, segs []Segment, cs []Carrier, opts Options) *BudgetError {
	t.Helper()
	_, err := Place(segs, cs, opts)
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("Place: %v, want a *BudgetError", err)
	}
	return be
}

func TestPlaceInvalid(t *testing.T) {
	fixed := func(l int64, k, m, s int) *erasure.Params {
		return &erasure.Params{K: k, M: m, ShardSize: s, Length: l}
	}
	ok := Options{ManifestBytes: 100}
	tests := []struct {
		name string
		segs []Segment
		cs   []Carrier
		opts Options
	}{
		{"no carriers", nil, nil, ok},
		{"no root", nil, []Carrier{{URL: "/a/", Depth: 1}}, ok},
		{"two roots", nil, []Carrier{{URL: "/", Capacity: 1000}, {URL: "/index.html", Capacity: 1000}}, ok},
		{"empty URL", nil, []Carrier{{URL: "/", Capacity: 1000}, {URL: "", Depth: 1}}, ok},
		{"duplicate URL", nil, []Carrier{{URL: "/", Capacity: 1000}, {URL: "/a/", Depth: 1}, {URL: "/a/", Depth: 2}}, ok},
		{"negative depth", nil, []Carrier{{URL: "/", Capacity: 1000}, {URL: "/a/", Depth: -1}}, ok},
		{"negative capacity", nil, []Carrier{{URL: "/", Capacity: -1}}, ok},
		{"manifest bytes missing", nil, site(1000), Options{}},
		{"negative block budget", nil, site(1000), Options{ManifestBytes: 1, MaxBlockBytes: -1}},
		{"block budget over 16 MiB", nil, site(1000), Options{ManifestBytes: 1, MaxBlockBytes: 16*miB + 1}},
		{"negative redundancy", nil, site(1000), Options{ManifestBytes: 1, Redundancy: -0.5}},
		{"NaN redundancy", nil, site(1000), Options{ManifestBytes: 1, Redundancy: math.NaN()}},
		{"redundancy 256", nil, site(1000), Options{ManifestBytes: 1, Redundancy: 256}},
		{"bad name", []Segment{{Name: "-x"}}, site(1000), ok},
		{"duplicate name", []Segment{{Name: "x"}, {Name: "x"}}, site(1000), ok},
		{"negative length", []Segment{{Name: "x", Length: -1}}, site(1000), ok},
		{"previous without fixed", []Segment{{Name: "x", Previous: map[manifestRef][]string{}}}, site(1000), ok},
		{"invalid fixed", []Segment{{Name: "x", Length: 10, Fixed: fixed(10, 0, 1, 10)}}, site(1000), ok},
		{"fixed length differs", []Segment{{Name: "x", Length: 10, Fixed: fixed(11, 1, 1, 11)}}, site(1000), ok},
		{"previous outside", []Segment{{Name: "x", Length: 10, Fixed: fixed(10, 1, 1, 10),
			Previous: map[manifestRef][]string{blockRef("x", 0, 2): {"/"}}}}, site(1000), ok},
		{"previous of another segment", []Segment{{Name: "x", Length: 10, Fixed: fixed(10, 1, 1, 10),
			Previous: map[manifestRef][]string{blockRef("y", 0, 0): {"/"}}}}, site(1000), ok},
		{"old block without size", nil, site(1000), Options{ManifestBytes: 1, Old: []OldBlock{{Ref: oldRef(1)}}}},
		{"old block twice", nil, site(1000), Options{ManifestBytes: 1, Old: []OldBlock{{Ref: oldRef(1), Size: 1}, {Ref: oldRef(1), Size: 2}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every case is refused with ErrInvalid.
			if _, err := Place(tt.segs, tt.cs, tt.opts); !errors.Is(err, ErrInvalid) {
				t.Errorf("Place: %v, want ErrInvalid", err)
			}
		})
	}
}

type manifestRef = manifest.BlockRef
