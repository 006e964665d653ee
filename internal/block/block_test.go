package block

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"
)

// sign7 is a stand-in signer: the block package only carries signatures.
func sign7(digest []byte) []byte { return bytes.Repeat([]byte{7}, SignatureSize) }

func sample(t testing.TB) *Block {
	t.Helper()
	b := &Block{
		Layout: Layout{
			Kind: KindData, Code: CodeRS8, Cipher: 2,
			Generation: [16]byte{1, 2, 3}, Time: 1700000000,
			SegmentID: sha256.Sum256([]byte("x")), Length: 100,
			K: 3, M: 2, ShardSize: 40, KeyID: [8]byte{9}, Name: "app",
		},
		Stripe: 0, Shard: 4,
		Data: bytes.Repeat([]byte{0xAB}, 40),
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	b := sample(t)
	enc, err := b.Marshal(sign7)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != b.Size() {
		t.Fatalf("encoded %d bytes, Size says %d", len(enc), b.Size())
	}
	got, err := Parse(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Layout != b.Layout || got.Stripe != b.Stripe || got.Shard != b.Shard ||
		!bytes.Equal(got.Data, b.Data) || got.Digest != b.Digest || got.Signature != b.Signature {
		t.Fatalf("round trip mismatch:\n got %+v\nwant %+v", got, b)
	}
}

// TestSum: Layout.Sum gives the digest a marshalled block carries, and a
// different shard gives a different one.
func TestSum(t *testing.T) {
	b := sample(t)
	if _, err := b.Marshal(sign7); err != nil {
		t.Fatal(err)
	}
	if got := b.Layout.Sum(b.Stripe, b.Shard, b.Data); got != b.Digest {
		t.Fatalf("Sum %x, block digest %x", got, b.Digest)
	}
	if got := b.Layout.Sum(b.Stripe, b.Shard-1, b.Data); got == b.Digest {
		t.Fatal("Sum ignores the shard index")
	}
}

// TestDamage: every damaged block is rejected with the error callers branch
// on; none panics. Recovery treats each of them as an erasure.
func TestDamage(t *testing.T) {
	good, err := sample(t).Marshal(sign7)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		buf  []byte
		want error
	}{
		{"empty", nil, ErrNotBlock},
		{"wrong magic", edit(func(b []byte) []byte { b[0] = 'X'; return b }), ErrNotBlock},
		// A newer format is refused with a clear message, not misread.
		{"version 2", edit(func(b []byte) []byte { b[4] = 2; return b }), ErrUnknownVersion},
		{"truncated header", good[:50], ErrBadHeader},
		{"truncated shard", good[:len(good)-100], ErrBadHeader},
		{"trailing junk", append(append([]byte(nil), good...), 0), ErrBadHeader},
		// The header lies about the shard size: total length no longer matches.
		{"lying shard size", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[82:], 41); return b }), ErrBadHeader},
		{"k zero", edit(func(b []byte) []byte { binary.BigEndian.PutUint16(b[76:], 0); return b }), ErrBadHeader},
		{"k+m > 256", edit(func(b []byte) []byte { binary.BigEndian.PutUint16(b[78:], 254); return b }), ErrBadHeader},
		{"shard index beyond k+m", edit(func(b []byte) []byte { binary.BigEndian.PutUint16(b[80:], 5); return b }), ErrBadHeader},
		{"stripe index beyond stripes", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[72:], 1); return b }), ErrBadHeader},
		{"unknown code", edit(func(b []byte) []byte { b[6] = 2; return b }), ErrBadHeader},
		{"unknown kind", edit(func(b []byte) []byte { b[5] = 9; return b }), ErrBadHeader},
		{"bad name", edit(func(b []byte) []byte { b[fixedLen] = '/'; return b }), ErrBadHeader},
		{"name length zero", edit(func(b []byte) []byte { b[110] = 0; return b }), ErrBadHeader},
		// Edited header fields that stay valid are caught by the digest.
		{"edited generation", edit(func(b []byte) []byte { b[8] ^= 1; return b }), ErrBadDigest},
		{"edited length", edit(func(b []byte) []byte { b[71] ^= 1; return b }), ErrBadDigest},
		{"flipped shard bit", edit(func(b []byte) []byte { b[fixedLen+5] ^= 0x10; return b }), ErrBadDigest},
		{"flipped digest bit", edit(func(b []byte) []byte { b[len(b)-80] ^= 1; return b }), ErrBadDigest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.buf)
			if !errors.Is(err, c.want) {
				t.Fatalf("Parse: got %v, want %v", err, c.want)
			}
		})
	}
}

func TestMarshalRejectsInvalid(t *testing.T) {
	b := sample(t)
	b.Data = b.Data[:39]
	if _, err := b.Marshal(sign7); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("short shard: got %v", err)
	}
	b = sample(t)
	b.Name = "../etc"
	if _, err := b.Marshal(sign7); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("bad name: got %v", err)
	}
}

func TestStripes(t *testing.T) {
	for _, c := range []struct {
		length uint64
		k      uint16
		s      uint32
		want   uint64
	}{{0, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 2}, {100, 3, 40, 1}, {121, 3, 40, 2}, {1 << 40, 255, 1 << 24, 258}, {255 << 24, 255, 1 << 24, 1}} {
		l := Layout{Length: c.length, K: c.k, ShardSize: c.s}
		if got := l.Stripes(); got != c.want {
			t.Errorf("Stripes(L=%d,k=%d,S=%d) = %d, want %d", c.length, c.k, c.s, got, c.want)
		}
	}
}

// FuzzParse: Parse never panics, and whatever it accepts marshals back to
// exactly the same bytes.
func FuzzParse(f *testing.F) {
	good, _ := sample(f).Marshal(sign7)
	f.Add(good)
	f.Add(good[:120])
	f.Add([]byte("LZRB\x01"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		b, err := Parse(buf)
		if err != nil {
			return
		}
		sig := b.Signature
		out, err := b.Marshal(func([]byte) []byte { return sig[:] })
		if err != nil {
			t.Fatalf("parsed block does not marshal: %v", err)
		}
		if !bytes.Equal(out, buf) {
			t.Fatal("parse/marshal not identical")
		}
	})
}

func BenchmarkParse_48K(b *testing.B) {
	blk := sample(b)
	blk.ShardSize = 48 << 10
	blk.Length = 3 * 48 << 10
	blk.Data = make([]byte, 48<<10)
	enc, err := blk.Marshal(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAppendReusesBuffer(t *testing.T) {
	b := sample(t)
	want, _ := b.Marshal(sign7)
	buf := []byte("prefix")
	got, err := b.Append(buf, sign7)
	if err != nil || !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
		t.Fatalf("Append: %v", err)
	}
	if _, err := Parse(got[6:]); err != nil {
		t.Fatal(err)
	}
}
