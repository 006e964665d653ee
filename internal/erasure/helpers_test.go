package erasure

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomBytes returns n pseudo-random bytes from seed.
func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x1a2a))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// encodeAll encodes data with p and returns copies of all shards, indexed
// [stripe][shard]. It also checks that Encode emits them in order.
func encodeAll(t testing.TB, p Params, data []byte) [][][]byte {
	t.Helper()
	out := make([][][]byte, p.Stripes())
	emit := func(stripe, shard int, b []byte) error {
		if stripe >= len(out) || shard != len(out[stripe]) || stripe > 0 && len(out[stripe-1]) != p.Shards() {
			return fmt.Errorf("stripe %d shard %d emitted out of order", stripe, shard)
		}
		out[stripe] = append(out[stripe], bytes.Clone(b))
		return nil
	}
	if err := Encode(bytes.NewReader(data), p, emit); err != nil {
		t.Fatalf("Encode(%v): %v", p, err)
	}
	if len(out[len(out)-1]) != p.Shards() {
		t.Fatalf("Encode(%v) emitted %d shards of the last stripe", p, len(out[len(out)-1]))
	}
	return out
}

// cloneStripe copies a stripe's shard slice (not the shard bytes), so that
// erasing entries leaves the original intact.
func cloneStripe(shards [][]byte) [][]byte {
	return append([][]byte(nil), shards...)
}

// memWriterAt is an io.WriterAt over a fixed buffer that records how many
// bytes were written.
type memWriterAt struct {
	buf     []byte
	written int
}

func (w *memWriterAt) WriteAt(b []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(b)) > int64(len(w.buf)) {
		return 0, fmt.Errorf("write [%d, %d) outside [0, %d)", off, off+int64(len(b)), len(w.buf))
	}
	w.written += copy(w.buf[off:], b)
	return len(b), nil
}

// decodeAll rebuilds the segment from stripes (nil = missing shard) and
// returns it, or the first error.
func decodeAll(p Params, stripes [][][]byte) ([]byte, error) {
	c, err := NewCoder(p)
	if err != nil {
		return nil, err
	}
	w := &memWriterAt{buf: make([]byte, p.Length)}
	for i, shards := range stripes {
		if err := c.WriteStripe(w, i, shards); err != nil {
			return nil, err
		}
	}
	if int64(w.written) != p.Length {
		return nil, fmt.Errorf("wrote %d bytes, want %d", w.written, p.Length)
	}
	return w.buf, nil
}
