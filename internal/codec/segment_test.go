package codec

import (
	"errors"
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
