package odds

import (
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestNeedsOfALayout: the manifest need comes first, stripes follow by
// segment and stripe, a replicated block counts once on its shallowest
// page, and blocks already had count as had.
func TestNeedsOfALayout(t *testing.T) {
	pages := []Page{{Key: "/", Depth: 0}, {Key: "/a", Depth: 1}, {Key: "/b", Depth: 2}, {Key: "/c", Depth: 2}}
	ref := func(seg string, stripe, shard int) manifest.BlockRef {
		return manifest.BlockRef{Segment: seg, Stripe: uint32(stripe), Shard: uint16(shard)}
	}
	l := Layout{
		Blocks: map[string][]manifest.BlockRef{
			"/":  {ref("app", 0, 0)},
			"/a": {ref("app", 0, 1), ref("db", 0, 0)},
			"/b": {ref("app", 0, 2), ref("app", 0, 1), ref("db", 0, 1)},
			"/c": {ref("app", 1, 0), ref("app", 1, 1)},
		},
		K:        map[string]int{"app": 2, "db": 1},
		Manifest: []string{"/", "/a"},
		Had:      map[manifest.BlockRef]bool{ref("db", 0, 1): true},
	}
	needs, bySeg := Needs(pages, l)
	if len(needs) != 4 || needs[0].K != 1 || len(needs[0].Pages) != 2 {
		t.Fatalf("needs %+v", needs)
	}
	app0 := needs[bySeg["app"][0]]
	if app0.K != 2 || len(app0.Pages) != 3 || app0.Pages[1] != 1 {
		t.Errorf("app stripe 0: %+v; want shard 1 on /a (its shallowest page)", app0)
	}
	if db := needs[bySeg["db"][0]]; db.Had != 1 || len(db.Pages) != 1 {
		t.Errorf("db stripe 0: %+v", db)
	}
	// app stripe 1 has both shards on /c: losing /c loses it.
	if got := Tolerance(needs); got != 0 {
		t.Errorf("tolerance %d, want 0 (app stripe 1 is on one page)", got)
	}
	if got := Tolerance(needs[:bySeg["app"][1]]); got != 1 {
		t.Errorf("tolerance without app stripe 1: %d, want 1", got)
	}
	if got := Tolerance([]Need{{K: 3, Pages: []int{0, 1}}}); got != -1 {
		t.Errorf("short need: %d, want -1", got)
	}
}

// TestNeedsKeepStripesNoPageCarries: a stripe of the layout's segment that
// no known page carries, and none of whose blocks is had, is a need that
// cannot be met, not one left out: nothing is recoverable now.
func TestNeedsKeepStripesNoPageCarries(t *testing.T) {
	ref := func(seg string, stripe, shard int) manifest.BlockRef {
		return manifest.BlockRef{Segment: seg, Stripe: uint32(stripe), Shard: uint16(shard)}
	}
	pages := []Page{{Key: "/", Depth: 0}, {Key: "/b", Depth: 1}}
	l := Layout{Blocks: map[string][]manifest.BlockRef{"/": {ref("a", 0, 0)}, "/b": {ref("a", 0, 1)}},
		K: map[string]int{"a": 2}, Stripes: map[string]int{"a": 2}, Manifest: []string{"/"}, ManifestHad: true,
		Had: map[manifest.BlockRef]bool{ref("a", 0, 0): true, ref("a", 0, 1): true}}
	needs, bySeg := Needs(pages, l)
	if len(bySeg["a"]) != 2 {
		t.Fatalf("needs of segment a: %v; want both stripes", bySeg["a"])
	}
	m := &Model{}
	if p := m.Recoverable(pages, needs, 0); p != 0 {
		t.Errorf("P now %v with stripe 1 nowhere; want 0", p)
	}
	if got := Tolerance(needs); got != -1 {
		t.Errorf("tolerance %d, want -1", got)
	}
}
