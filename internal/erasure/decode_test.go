package erasure

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestReconstructDamage has one subtest per kind of damage to one stripe of
// k = 4, m = 2.
func TestReconstructDamage(t *testing.T) {
	p := Params{K: 4, M: 2, ShardSize: 8, Length: 32}
	data := randomBytes(11, 32)
	fresh := func() [][]byte { return cloneStripe(encodeAll(t, p, data)[0]) }
	checkData := func(t *testing.T, shards [][]byte) {
		t.Helper()
		if got := bytes.Join(shards[:p.K], nil); !bytes.Equal(got, data) {
			t.Errorf("data shards = %x, want %x", got, data)
		}
	}

	t.Run("wrong shard count", func(t *testing.T) {
		// A slice of k+m−1 entries is a caller bug: ErrShardCount.
		err := Reconstruct(p, fresh()[:5])
		if !errors.Is(err, ErrShardCount) || !strings.Contains(err.Error(), "got 5, want k+m = 6") {
			t.Errorf("got %v, want ErrShardCount", err)
		}
	})
	t.Run("wrong-length shards are missing", func(t *testing.T) {
		// Truncated and overlong shards count as missing and are rebuilt.
		shards := fresh()
		shards[0] = shards[0][:7]
		shards[2] = append(bytes.Clone(shards[2]), 0)
		if err := Reconstruct(p, shards); err != nil {
			t.Fatal(err)
		}
		checkData(t, shards)
	})
	t.Run("zero-length shard reuses capacity", func(t *testing.T) {
		// A zero-length entry with room for a shard receives the rebuilt shard.
		shards := fresh()
		buf := make([]byte, 0, p.ShardSize)
		shards[1] = buf
		if err := Reconstruct(p, shards); err != nil {
			t.Fatal(err)
		}
		checkData(t, shards)
		if &shards[1][0] != &buf[:1][0] {
			t.Errorf("rebuilt shard 1 was not written into the given buffer")
		}
	})
	t.Run("only parity missing", func(t *testing.T) {
		// Nothing to do: parity entries stay missing.
		shards := fresh()
		shards[4], shards[5] = nil, nil
		if err := Reconstruct(p, shards); err != nil {
			t.Fatal(err)
		}
		if shards[4] != nil || shards[5] != nil {
			t.Errorf("parity was rebuilt, want it left missing")
		}
	})
	t.Run("too few wrong-length shards", func(t *testing.T) {
		// Three good shards of the four needed: ErrTooFewShards.
		shards := fresh()
		shards[0], shards[1] = nil, shards[1][:1]
		shards[5] = make([]byte, 9)
		err := Reconstruct(p, shards)
		if !errors.Is(err, ErrTooFewShards) || !strings.Contains(err.Error(), "have 3 of the 4 shards needed") {
			t.Errorf("got %v, want ErrTooFewShards with 3 of 4", err)
		}
	})
	t.Run("no parity and a data shard missing", func(t *testing.T) {
		// m = 0: any loss is fatal, and the codec is never called.
		q := Params{K: 3, M: 0, ShardSize: 2, Length: 6}
		err := Reconstruct(q, [][]byte{{1, 2}, nil, {5, 6}})
		if !errors.Is(err, ErrTooFewShards) || !strings.Contains(err.Error(), "have 2 of the 3 shards needed") {
			t.Errorf("got %v, want ErrTooFewShards with 2 of 3", err)
		}
	})
	t.Run("invalid params", func(t *testing.T) {
		// Rejected before looking at the shards.
		if err := Reconstruct(Params{K: 300, ShardSize: 1}, nil); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("got %v, want ErrInvalidParams", err)
		}
	})
}

// failWriterAt fails every write.
type failWriterAt struct{ err error }

func (w failWriterAt) WriteAt([]byte, int64) (int, error) { return 0, w.err }

// TestWriteStripeDamage has one subtest per problem WriteStripe reports.
func TestWriteStripeDamage(t *testing.T) {
	p := Params{K: 3, M: 2, ShardSize: 4, Length: 20} // 2 stripes, 4 bytes of padding
	data := randomBytes(12, 20)
	encoded := encodeAll(t, p, data)

	t.Run("stripe out of range", func(t *testing.T) {
		// Only stripes 0 and 1 exist.
		for _, i := range []int{-1, 2} {
			err := WriteStripe(&memWriterAt{buf: make([]byte, 20)}, p, i, cloneStripe(encoded[0]))
			if err == nil || !strings.Contains(err.Error(), "out of range [0, 2)") {
				t.Errorf("stripe %d: got %v, want out of range", i, err)
			}
		}
	})
	t.Run("non-zero padding", func(t *testing.T) {
		// A last stripe whose padding is not zero does not belong to these
		// parameters: ErrBadPadding, and nothing is written.
		shards := cloneStripe(encoded[1])
		shards[2] = bytes.Clone(shards[2])
		shards[2][3] = 0xAA
		w := &memWriterAt{buf: make([]byte, 20)}
		err := WriteStripe(w, p, 1, shards)
		if !errors.Is(err, ErrBadPadding) || !strings.Contains(err.Error(), "stripe 1: non-zero padding: byte 11 of the stripe is 0xaa") {
			t.Errorf("got %v, want ErrBadPadding at byte 11", err)
		}
		if w.written != 0 {
			t.Errorf("%d bytes written before the error", w.written)
		}
	})
	t.Run("padding beyond shorter length", func(t *testing.T) {
		// The same shards under a shorter length have non-zero padding.
		if data[19] == 0 {
			t.Fatal("segment byte 19 is zero: choose another seed")
		}
		q := p
		q.Length = 19
		err := WriteStripe(&memWriterAt{buf: make([]byte, 19)}, q, 1, cloneStripe(encoded[1]))
		if !errors.Is(err, ErrBadPadding) {
			t.Errorf("got %v, want ErrBadPadding", err)
		}
	})
	t.Run("too few shards", func(t *testing.T) {
		// The stripe number is in the error.
		shards := cloneStripe(encoded[1])
		shards[0], shards[1], shards[3] = nil, nil, nil
		err := WriteStripe(&memWriterAt{buf: make([]byte, 20)}, p, 1, shards)
		if !errors.Is(err, ErrTooFewShards) || !strings.HasPrefix(err.Error(), "stripe 1: too few shards") {
			t.Errorf("got %v, want ErrTooFewShards for stripe 1", err)
		}
	})
	t.Run("write error", func(t *testing.T) {
		// The writer's error is returned, wrapped.
		errBoom := errors.New("boom")
		err := WriteStripe(failWriterAt{errBoom}, p, 0, cloneStripe(encoded[0]))
		if !errors.Is(err, errBoom) || !strings.Contains(err.Error(), "writing shard 0") {
			t.Errorf("got %v, want errBoom", err)
		}
	})
	t.Run("last stripe truncated", func(t *testing.T) {
		// Only the 8 bytes inside the length are written, at offset 12.
		w := &memWriterAt{buf: make([]byte, 20)}
		if err := WriteStripe(w, p, 1, cloneStripe(encoded[1])); err != nil {
			t.Fatal(err)
		}
		if w.written != 8 || !bytes.Equal(w.buf[12:], data[12:]) || !bytes.Equal(w.buf[:12], make([]byte, 12)) {
			t.Errorf("wrote %d bytes: %x", w.written, w.buf)
		}
	})
}
