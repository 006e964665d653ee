package codec

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
)

// TestSegmentIDCheckedInAnyOrder: the segment id is checked against the
// spool hashed stripe by stripe as they are rebuilt, in order or not. A
// segment whose blocks fit together (every stripe rebuilds) but whose
// signed layout names another id is a mismatch either way; the genuine
// one is verified either way.
func TestSegmentIDCheckedInAnyOrder(t *testing.T) {
	a, _ := testKeys(t)
	blocks, l, _ := earlySegment(t)
	other := make([][][]byte, len(blocks))
	for s, stripe := range blocks {
		for _, enc := range stripe {
			b, err := block.Parse(enc)
			if err != nil {
				t.Fatal(err)
			}
			b.SegmentID[0] ^= 1
			f, err := b.Marshal(func(d []byte) []byte { return a.Signer().Sign("block", d) })
			if err != nil {
				t.Fatal(err)
			}
			other[s] = append(other[s], f)
		}
	}
	for _, tc := range []struct {
		name     string
		blocks   [][][]byte
		reversed bool
		verified bool
	}{
		{"genuine, in order", blocks, false, true},
		{"genuine, last stripe first", blocks, true, true},
		{"another id, in order", other, false, false},
		{"another id, last stripe first", other, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
			defer asm.Close()
			for i := range tc.blocks {
				s := i
				if tc.reversed {
					s = len(tc.blocks) - 1 - i
				}
				for _, enc := range tc.blocks[s] {
					if _, err := asm.Add(enc, before); err != nil {
						t.Fatal(err)
					}
				}
			}
			st := asm.Status()[0]
			_, err := asm.Extract(st.Layout, t.TempDir(), bundle.ExtractOptions{})
			if st.Done() != tc.verified || st.Mismatch == tc.verified || (err == nil) != tc.verified ||
				!tc.verified && !errors.Is(err, ErrDigestMismatch) || tc.verified && st.Layout != l {
				t.Fatalf("status %+v, extract %v", st, err)
			}
		})
	}
}

// TestLateBlocksComparedWithCodeword: once a stripe is rebuilt from its
// data shards, a genuine parity block is redundant, and a parity block of
// other bytes signed by the same key contests the stripe (ErrConflict),
// whether it comes first or after genuine ones.
func TestLateBlocksComparedWithCodeword(t *testing.T) {
	a, _ := testKeys(t)
	blocks, _, _ := earlySegment(t)
	r := rand.New(rand.NewPCG(9, 10))
	forged := forgeAll(t, blocks[:1], func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)[0]
	k := len(blocks[0]) / 2 // fixed(4, 4, …): as many parity shards as data
	for _, genuineFirst := range []int{0, 1, k - 1} {
		asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		for _, enc := range blocks[0][:k] {
			if o, err := asm.Add(enc, before); o != Accepted || err != nil {
				t.Fatalf("data block: %v %v", o, err)
			}
		}
		for _, enc := range blocks[0][k : k+genuineFirst] {
			if o, err := asm.Add(enc, before); o != Redundant || err != nil {
				t.Fatalf("genuine parity block: %v %v", o, err)
			}
		}
		if _, err := asm.Add(forged[k+genuineFirst], after); !errors.Is(err, ErrConflict) {
			t.Fatalf("after %d genuine parity blocks, a forged one: %v, want ErrConflict", genuineFirst, err)
		}
		asm.Close()
	}
}
