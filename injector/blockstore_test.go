package injector

import (
	"bytes"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestBlockStore checks that comments come back byte for byte from a
// store that keeps them in memory and from one that keeps them in a file
// (more wanted than blockMemory), and that a comment not stored is an
// error.
func TestBlockStore(t *testing.T) {
	for _, want := range []int64{1 << 10, blockMemory + 1} {
		s := newBlockStore(t.TempDir(), want, nil)
		var stored [][]byte
		for i := range 5 {
			c := bytes.Repeat([]byte{byte('a' + i)}, 100+i)
			at, err := s.add(c)
			if err != nil {
				t.Fatal(err)
			}
			s.index[segRef{BlockRef: manifest.BlockRef{Segment: "x", Shard: uint16(i)}}] = [2]int64{at, int64(len(c))}
			stored = append(stored, c)
		}
		if inFile := s.f != nil; inFile != (want > blockMemory) {
			t.Errorf("want %d: comments in a file %v", want, inFile)
		}
		for i, c := range stored {
			got, err := s.comment(segRef{BlockRef: manifest.BlockRef{Segment: "x", Shard: uint16(i)}})
			if err != nil || !bytes.Equal(got, c) {
				t.Errorf("want %d: comment %d = %q, %v; want %q", want, i, got, err, c)
			}
		}
		if _, err := s.comment(segRef{BlockRef: manifest.BlockRef{Segment: "y"}}); err == nil {
			t.Errorf("want %d: a comment never stored came back", want)
		}
		s.close()
	}
}
