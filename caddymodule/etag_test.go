package caddymodule

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestETagTellsCodingsApart: a segment coded anew (the same ciphertext,
// so the same digest, coded by a new generation with other parameters:
// the pages could no longer take its earlier coding) has other blocks at
// the same places, so a page carrying them has another ETag; the same
// version carried over keeps it.
func TestETagTellsCodingsApart(t *testing.T) {
	g1 := segGeneration(genID(1), manifest.ID{}, segSpec{"app", 1, genID(1), 1, 4, 1000})
	kept := segGeneration(genID(2), genID(1), segSpec{"app", 1, genID(1), 1, 4, 1000})
	recoded := segGeneration(genID(3), genID(1), segSpec{"app", 1, genID(3), 1, 4, 1000})
	etag := func(g *generation) string {
		return (&layout{g: g, cur: &assignment{blocks: []int{0, 1}}}).etag([sha256.Size]byte{}, "")
	}
	if etag(kept) != etag(g1) {
		t.Fatal("the same blocks carried over changed the ETag")
	}
	if etag(recoded) == etag(g1) {
		t.Fatal("blocks coded anew kept the ETag of the earlier coding: a client's copy of the old bytes would be answered 304")
	}
}

// TestRidingKeepsRecodedBlocks: the previous generation's blocks of a
// segment the new one coded anew (same ciphertext, new blocks) ride
// along, as those of a changed segment do; only the very blocks carried
// over are left out.
func TestRidingKeepsRecodedBlocks(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	app, db := segSpec{"app", 1, genID(1), 1, 4, 1000}, segSpec{"db", 1, genID(1), 1, 4, 1000}
	g1 := segGeneration(genID(1), manifest.ID{}, app, db)
	p1 := childPlacer(st, g1, 8*armoredSize(1000), 1, false, genTime)
	g1.placer = p1
	a := mustAssign(t, p1, "/p", true)
	recodedDB := db
	recodedDB.madeBy = genID(2)
	g2 := segGeneration(genID(2), genID(1), app, recodedDB)
	h := &Handler{ctx: context.Background()}
	old, err := h.ridingBlocks(g1, g2, "/p", roomy)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := refsOf(g1, &assignment{blocks: old}), refsOf(g1, a); len(got["app"]) != 0 || len(got["db"]) != len(want["db"]) || len(want["db"]) == 0 {
		t.Fatalf("riding %v of the page's %v: want the db blocks (coded anew), not the app's (carried over)", got, want)
	}
}
