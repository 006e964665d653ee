package erasure

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestEncodeWideMatches checks that encoding in passes (stripes wider
// than stripeMemory) emits the shards, parity included, that encoding a
// whole stripe at once does, in the same order: across group and column
// slice boundaries, a short last stripe, one parity group, many, and
// none.
func TestEncodeWideMatches(t *testing.T) {
	for _, p := range []Params{
		{K: 5, M: 7, ShardSize: 1000, Length: 12345},
		{K: 10, M: 10, ShardSize: 640, Length: 10*640*3 - 1},
		{K: 3, M: 1, ShardSize: 4097, Length: 3*4097 + 5},
		{K: 200, M: 55, ShardSize: 300, Length: 200*300 + 77},
		{K: 4, M: 0, ShardSize: 500, Length: 3000},
	} {
		data := randomBytes(11, int(p.Length))
		want := encodeAll(t, p, data)
		for _, mem := range []int{3 * p.ShardSize, 2 * p.ShardSize, 64 * 3} {
			func() {
				defer func(old int) { stripeMemory = old }(stripeMemory)
				stripeMemory = mem
				c, err := NewCoder(p)
				if err != nil {
					t.Fatal(err)
				}
				if !c.wide() {
					t.Fatalf("%v, stripeMemory %d: not encoded in passes", p, mem)
				}
				got := encodeAll(t, p, data)
				if len(got) != len(want) {
					t.Fatalf("%v, stripeMemory %d: %d stripes, want %d", p, mem, len(got), len(want))
				}
				for i := range want {
					for j := range want[i] {
						if !bytes.Equal(got[i][j], want[i][j]) {
							t.Fatalf("%v, stripeMemory %d: stripe %d shard %d differs", p, mem, i, j)
						}
					}
				}
			}()
		}
	}
}

// TestEncodeWideShortSource checks that a source shorter than the
// length is an error wrapping io.ErrUnexpectedEOF in passes too.
func TestEncodeWideShortSource(t *testing.T) {
	defer func(old int) { stripeMemory = old }(stripeMemory)
	stripeMemory = 64
	p := Params{K: 4, M: 2, ShardSize: 100, Length: 700}
	err := Encode(bytes.NewReader(make([]byte, 500)), p, func(int, int, []byte) error { return nil })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Encode = %v, want io.ErrUnexpectedEOF", err)
	}
}
