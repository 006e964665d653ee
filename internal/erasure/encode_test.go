package erasure

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestEncodeLayout checks the striping layout independently of the code:
// data shard j of stripe i is segment bytes [(i·K+j)·S, (i·K+j+1)·S),
// zero past the length.
func TestEncodeLayout(t *testing.T) {
	for _, p := range []Params{
		{K: 3, M: 2, ShardSize: 5, Length: 0},
		{K: 3, M: 2, ShardSize: 5, Length: 7},
		{K: 3, M: 0, ShardSize: 5, Length: 31},
		{K: 1, M: 1, ShardSize: 1, Length: 4},
	} {
		data := randomBytes(7, int(p.Length))
		padded := make([]byte, int64(p.Stripes())*p.StripeSize())
		copy(padded, data)
		for i, shards := range encodeAll(t, p, data) {
			for j, s := range shards[:p.K] {
				off := (i*p.K + j) * p.ShardSize
				if !bytes.Equal(s, padded[off:off+p.ShardSize]) {
					t.Errorf("%v: stripe %d data shard %d = %x, want %x", p, i, j, s, padded[off:off+p.ShardSize])
				}
			}
		}
	}
}

// TestEncodeZeroParity checks that m = 0 emits only the data shards.
func TestEncodeZeroParity(t *testing.T) {
	p := Params{K: 4, M: 0, ShardSize: 3, Length: 20}
	stripes := encodeAll(t, p, randomBytes(3, 20))
	if len(stripes) != 2 || len(stripes[0]) != 4 || len(stripes[1]) != 4 {
		t.Errorf("got %d stripes of %d shards, want 2 of 4", len(stripes), len(stripes[0]))
	}
}

// errReaderAt fails every read.
type errReaderAt struct{ err error }

func (r errReaderAt) ReadAt([]byte, int64) (int, error) { return 0, r.err }

// shortReaderAt returns fewer bytes than asked without an error, which
// breaks the io.ReaderAt contract.
type shortReaderAt struct{}

func (shortReaderAt) ReadAt(b []byte, _ int64) (int, error) { return len(b) / 2, nil }

func TestEncodeErrors(t *testing.T) {
	p := Params{K: 4, M: 2, ShardSize: 8, Length: 100}
	emitNothing := func(int, int, []byte) error { return nil }
	errBoom := errors.New("boom")

	t.Run("source too short", func(t *testing.T) {
		// 99 of 100 bytes: the last stripe's read comes up short.
		err := Encode(bytes.NewReader(make([]byte, 99)), p, emitNothing)
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "reading stripe 3 at offset 96") {
			t.Errorf("got %v, want io.ErrUnexpectedEOF in stripe 3", err)
		}
	})
	t.Run("source longer", func(t *testing.T) {
		// Bytes past the length are ignored.
		long := randomBytes(5, 150)
		var got []byte
		emit := func(_, shard int, b []byte) error {
			if shard < p.K {
				got = append(got, b...)
			}
			return nil
		}
		if err := Encode(bytes.NewReader(long), p, emit); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:100], long[:100]) || !bytes.Equal(got[100:], make([]byte, 28)) {
			t.Errorf("data shards are not the first 100 bytes followed by zeros")
		}
	})
	t.Run("read error", func(t *testing.T) {
		// The reader's error is returned, wrapped.
		if err := Encode(errReaderAt{errBoom}, p, emitNothing); !errors.Is(err, errBoom) {
			t.Errorf("got %v, want errBoom", err)
		}
	})
	t.Run("short read without error", func(t *testing.T) {
		// A ReaderAt that returns less without saying why is an unexpected EOF.
		if err := Encode(shortReaderAt{}, p, emitNothing); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("got %v, want io.ErrUnexpectedEOF", err)
		}
	})
	t.Run("emit error", func(t *testing.T) {
		// The first emit error stops the encoding and is returned, wrapped.
		calls := 0
		emit := func(stripe, shard int, _ []byte) error {
			calls++
			if stripe == 1 && shard == 2 {
				return errBoom
			}
			return nil
		}
		err := Encode(bytes.NewReader(make([]byte, 100)), p, emit)
		if !errors.Is(err, errBoom) || !strings.Contains(err.Error(), "stripe 1 shard 2") || calls != 9 {
			t.Errorf("got %v after %d calls, want errBoom at stripe 1 shard 2 after 9", err, calls)
		}
	})
	t.Run("invalid params", func(t *testing.T) {
		// Nothing is read or emitted.
		err := Encode(errReaderAt{errBoom}, Params{K: 0, M: 1, ShardSize: 1}, emitNothing)
		if !errors.Is(err, ErrInvalidParams) {
			t.Errorf("got %v, want ErrInvalidParams", err)
		}
	})
}
