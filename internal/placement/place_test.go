package placement

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

const manifestSize = 9000

// TestPlaceMcCown: a 1 MiB segment at 50/100/150 KiB blocks on a site with
// enough pages gets McCown's k = 21/11/7, and spare pages raise m until the
// stripe spans 256 pages.
func TestPlaceMcCown(t *testing.T) {
	cs := site(4*miB, 20, 280)
	for _, tt := range []struct{ z, k int }{{50 * kiB, 21}, {100 * kiB, 11}, {150 * kiB, 7}} {
		opts := Options{MaxBlockBytes: tt.z, ManifestBytes: manifestSize}
		segs := []Segment{{Name: "app", Length: miB}}
		p := mustPlace(t, segs, cs, opts).Params["app"]
		if p.K != tt.k || p.M != 256-tt.k || p.Stripes() != 1 {
			t.Errorf("z = %d: %v, want k = %d, m = %d, one stripe", tt.z, p, tt.k, 256-tt.k)
		}
	}
}

// TestPlaceFewPages: with fewer pages than 2·21 blocks, the 1 MiB segment
// is cut into more, narrower stripes; with ample room every page still
// gets a block of every stripe.
func TestPlaceFewPages(t *testing.T) {
	tests := []struct {
		pages, k, m, stripes int
	}{
		{pages: 10, k: 5, m: 5, stripes: 5},   // minimum 5+5
		{pages: 12, k: 6, m: 6, stripes: 4},   // 21 → 4 stripes of 6
		{pages: 3, k: 1, m: 2, stripes: 21},   // minimum 1+1, raised to 1+2
		{pages: 41, k: 11, m: 30, stripes: 2}, // kmax 20 → 2 stripes of 11
	}
	for _, tt := range tests {
		cs := site(8*miB, tt.pages-1)
		opts := Options{MaxBlockBytes: 50 * kiB, ManifestBytes: manifestSize}
		pl := mustPlace(t, []Segment{{Name: "app", Length: miB}}, cs, opts)
		if p := pl.Params["app"]; p.K != tt.k || p.M != tt.m || p.Stripes() != tt.stripes {
			t.Errorf("%d pages: %v with %d stripes, want k=%d m=%d, %d stripes", tt.pages, p, p.Stripes(), tt.k, tt.m, tt.stripes)
		}
		for _, c := range cs {
			if n := len(pl.Pages[c.URL]); n != tt.stripes {
				t.Errorf("%d pages: %s carries %d blocks, want one per stripe (%d)", tt.pages, c.URL, n, tt.stripes)
			}
		}
	}
}

// TestPlaceShallowFirst: 300 pages but stripes of at most 256 blocks: the
// 256 shallowest pages carry the stripe, shard 0 on the root, and the 44
// deepest carry one replica each, of the least covered blocks in turn,
// data shard first.
func TestPlaceShallowFirst(t *testing.T) {
	cs := site(miB, 50, 100, 149)
	slices.Reverse(cs) // input order must not matter
	segs := []Segment{{Name: "db", Length: 10 * kiB}}
	pl := mustPlace(t, segs, cs, Options{ManifestBytes: manifestSize})
	if p := pl.Params["db"]; p.K != 1 || p.M != 255 {
		t.Fatalf("params %v, want k=1 m=255", p)
	}
	if got := pl.Pages["/"]; !reflect.DeepEqual(got, []manifest.BlockRef{{Segment: "db", Shard: 0}}) {
		t.Errorf("root carries %v, want db/0/0", got)
	}
	for _, c := range cs {
		r := pl.Pages[c.URL][0]
		var i int
		if _, err := fmt.Sscanf(c.URL, "/d3/%d/", &i); err != nil || i < 105 {
			if pl.Coverage[r] != 1 && r.Shard >= 44 {
				t.Errorf("%s (depth %d) carries %v, which has %d copies", c.URL, c.Depth, r, pl.Coverage[r])
			}
			continue
		}
		if want := uint16(i - 105); r.Shard != want {
			t.Errorf("deep page %s carries replica %v, want shard %d", c.URL, r, want)
		}
	}
}

// TestPlaceDepthOrder: with room for only the minimum stripe, the blocks
// go to the shallowest pages, data shards first.
func TestPlaceDepthOrder(t *testing.T) {
	segs := []Segment{{Name: "app", Length: 4 * 48 * kiB}} // k = 4, m = 4
	cost := BlockCommentBytes(3, 48*kiB)
	var cs []Carrier
	for d := range 5 {
		for i := range 3 {
			cs = append(cs, Carrier{URL: string(rune('a'+d)) + string(rune('0'+i)), Depth: d, Capacity: cost})
			if d == 0 {
				break
			}
		}
	}
	cs[0].Capacity += manifestSize
	for i := 1; i <= 3; i++ {
		cs[i].Capacity += manifestSize
	}
	cs[5].Capacity += 100 // b1... more room: preferred within depth 2
	pl := mustPlace(t, segs, cs, Options{ManifestBytes: manifestSize})
	// The minimum stripe (shards 0–7), then parity raised by spare pages.
	want := map[string]uint16{"a0": 0, "b0": 1, "b1": 2, "b2": 3, "c1": 4, "c0": 5, "c2": 6, "d0": 7,
		"d1": 8, "d2": 9, "e0": 10, "e1": 11, "e2": 12}
	for u, sh := range want {
		if got := pl.Pages[u]; len(got) != 1 || got[0].Shard != sh {
			t.Errorf("%s carries %v, want shard %d", u, got, sh)
		}
	}
	if len(pl.Pages) != len(want) {
		t.Errorf("%d pages carry blocks, want %d: %v", len(pl.Pages), len(want), pl.Pages)
	}
}

// TestPlaceManifest: the manifest goes on the root and every depth-1 page
// with room, never deeper.
func TestPlaceManifest(t *testing.T) {
	cs := site(100*kiB, 4, 3)
	cs[2].Capacity = manifestSize - 1 // a depth-1 page without room
	pl := mustPlace(t, []Segment{{Name: "app", Length: 1000}}, cs, Options{ManifestBytes: manifestSize})
	want := []string{"/", "/d1/000/", "/d1/002/", "/d1/003/"}
	if !reflect.DeepEqual(pl.Manifest, want) {
		t.Errorf("manifest on %v, want %v", pl.Manifest, want)
	}

	cs[0].Capacity = manifestSize - 1 // the root without room: a budget error
	_, err := Place(nil, cs, Options{ManifestBytes: manifestSize})
	var be *BudgetError
	if !errors.As(err, &be) || be.Segment != "" || !strings.Contains(err.Error(), "root page") {
		t.Errorf("root without room: %v, want a manifest budget error", err)
	}
}

// TestPlaceFixedKeepsPages: planning the next generation with one segment
// unchanged leaves its blocks, replicas included, exactly where they were.
func TestPlaceFixedKeepsPages(t *testing.T) {
	cs := site(2*miB, 10, 600)
	opts := Options{ManifestBytes: manifestSize}
	first := mustPlace(t, []Segment{{Name: "app", Length: 3 * miB}, {Name: "db", Length: 200 * kiB}}, cs, opts)
	app := first.Params["app"]
	prev := previous(first, "app")
	if len(prev[blockRef("app", 0, 0)]) < 2 {
		t.Fatalf("app/0/0 is on %v; the test needs replicas", prev[blockRef("app", 0, 0)])
	}
	segs := []Segment{{Name: "app", Length: 3 * miB, Fixed: &app, Previous: prev}, {Name: "db", Length: 900 * kiB}}
	second := mustPlace(t, segs, cs, opts)
	if got := previous(second, "app"); !reflect.DeepEqual(got, prev) {
		t.Errorf("the unchanged segment moved")
	}
	if second.Params["db"] == first.Params["db"] {
		t.Errorf("the changed segment kept its parameters")
	}
}

// TestPlaceFixedMoves: blocks whose pages are gone or full go elsewhere,
// never next to another block of their stripe.
func TestPlaceFixedMoves(t *testing.T) {
	cs := site(miB, 20)
	p, err := erasure.NewParams(100*kiB, 2, 2, 50*kiB)
	if err != nil {
		t.Fatal(err)
	}
	prev := map[manifest.BlockRef][]string{
		{Segment: "app", Shard: 0}: {"/gone/"},               // page no longer a carrier
		{Segment: "app", Shard: 1}: {"/d1/000/"},             // kept
		{Segment: "app", Shard: 2}: {"/d1/000/", "/d1/005/"}, // first page taken by shard 1
		{Segment: "app", Shard: 3}: {"/d1/007/", "/d1/007/"}, // listed twice: one copy
	}
	segs := []Segment{{Name: "app", Length: 100 * kiB, Fixed: &p, Previous: prev}}
	opts := Options{ManifestBytes: manifestSize, Redundancy: NoRedundancy}
	pl := mustPlace(t, segs, cs, opts)
	for u, sh := range map[string]uint16{"/d1/000/": 1, "/d1/005/": 2, "/d1/007/": 3} {
		if got := pl.Pages[u]; len(got) != 1 || got[0].Shard != sh {
			t.Errorf("%s carries %v, want only shard %d", u, got, sh)
		}
	}
	if pl.Pages["/"][0].Shard != 0 {
		t.Errorf("the homeless shard 0 went to %v, want the root", pl.Pages["/"])
	}
}

// TestPlaceReplicas: the pages beyond a 256-block stripe get one replica
// each, of the least covered blocks in turn, data shards first: with R
// replicas, shard i has 1 + ⌊R/256⌋ + (i < R mod 256) copies.
func TestPlaceReplicas(t *testing.T) {
	for _, pages := range []int{256, 300, 600, 1000} {
		cs := site(200*kiB, pages-1)
		pl := mustPlace(t, []Segment{{Name: "a", Length: miB}}, cs, Options{MaxBlockBytes: 50 * kiB, ManifestBytes: manifestSize})
		p := pl.Params["a"]
		if p.K != 21 || p.M != 235 {
			t.Fatalf("%d pages: %v, want k=21 m=235", pages, p)
		}
		r := pages - 256
		for sh := range 256 {
			want := 1 + r/256
			if sh < r%256 {
				want++
			}
			if got := pl.Coverage[blockRef("a", 0, sh)]; got != want {
				t.Errorf("%d pages: shard %d has %d copies, want %d", pages, sh, got, want)
			}
		}
		if len(pl.Pages) != pages {
			t.Errorf("%d pages: only %d carry blocks", pages, len(pl.Pages))
		}
	}
}

// TestPlaceOld: blocks of the previous generation stay only where room
// remains, one page per block first.
func TestPlaceOld(t *testing.T) {
	cost := BlockCommentBytes(3, 48*kiB)
	cs := []Carrier{
		{URL: "/", Capacity: manifestSize + cost + 5000},      // room for one old block of 5000
		{URL: "/a/", Depth: 1, Capacity: manifestSize + cost}, // full
		{URL: "/b/", Depth: 1, Capacity: manifestSize + cost + 12000},
	}
	old := []OldBlock{
		{Ref: oldRef(1), Size: 5000, URLs: []string{"/", "/b/"}},
		{Ref: oldRef(2), Size: 5000, URLs: []string{"/", "/a/", "/gone/"}},
		{Ref: oldRef(3), Size: 7000, URLs: []string{"/b/"}},
	}
	segs := []Segment{{Name: "app", Length: 48 * kiB}}
	opts := Options{ManifestBytes: manifestSize, Old: old}
	pl := mustPlace(t, segs, cs, opts)
	want := map[string][]OldRef{"/": {oldRef(1)}, "/b/": {oldRef(1), oldRef(3)}}
	if !reflect.DeepEqual(pl.Old, want) {
		t.Errorf("old blocks kept: %v, want %v", pl.Old, want)
	}
	// First copies before second ones: with room for two blocks on /b/,
	// 1's second copy gives way to 3's first copy.
	cs[2].Capacity -= 5000
	pl = mustPlace(t, segs, cs, opts)
	if got := pl.Old["/b/"]; !reflect.DeepEqual(got, []OldRef{oldRef(3)}) {
		t.Errorf("/b/ keeps %v, want only the first copy of 3", got)
	}
}

// TestPlaceOldBeforeSpare: spare room normally goes to parity, evicting the
// previous generation; OldBeforeSpare keeps the old blocks first.
func TestPlaceOldBeforeSpare(t *testing.T) {
	cs := site(110*kiB, 29) // room for a block or an old block, not both
	var old []OldBlock
	for i, c := range cs {
		old = append(old, OldBlock{Ref: oldRef(i), Size: 60 * kiB, URLs: []string{c.URL}})
	}
	segs := []Segment{{Name: "app", Length: 200 * kiB}} // 5+5 blocks of 41 KiB
	opts := Options{ManifestBytes: manifestSize, Old: old}
	pl := mustPlace(t, segs, cs, opts)
	if n := len(pl.Old); n != 0 {
		t.Errorf("old blocks kept on %d pages, want none: parity takes the room", n)
	}
	opts.OldBeforeSpare = true
	pl = mustPlace(t, segs, cs, opts)
	if n, p := len(pl.Old), pl.Params["app"]; n != 20 || p.K != 5 || p.M != 5 {
		t.Errorf("old blocks kept on %d pages, params %v; want the 20 pages beyond the minimum 5+5", n, p)
	}
}

func oldRef(i int) OldRef {
	return OldRef{SegmentID: manifest.Digest{byte(i)}, Block: blockRef("app", 0, i)}
}

// TestPlaceDeterministic: the same inputs, in any order, give the same
// plan.
func TestPlaceDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		segs, cs, opts := randomInputs(r)
		a, errA := Place(segs, cs, opts)
		shuffled := slices.Clone(cs)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		b, errB := Place(segs, shuffled, opts)
		if !reflect.DeepEqual(a, b) || !sameError(errA, errB) {
			t.Fatalf("two plans differ: %v / %v", errA, errB)
		}
	}
}

func sameError(a, b error) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error()
}

// previous returns the placement of one segment's blocks in the form
// Segment.Previous takes.
func previous(pl *Plan, name string) map[manifest.BlockRef][]string {
	prev := map[manifest.BlockRef][]string{}
	for _, u := range slices.Sorted(maps.Keys(pl.Pages)) {
		for _, r := range pl.Pages[u] {
			if r.Segment == name {
				prev[r] = append(prev[r], u)
			}
		}
	}
	return prev
}
