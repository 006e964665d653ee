package erasure

import (
	"bytes"
	"testing"
)

// benchmarkEncode encodes a segment of the given number of stripes; the
// bytes per operation are the segment's data bytes.
func benchmarkEncode(b *testing.B, k, m, shard, stripes int) {
	p := Params{K: k, M: m, ShardSize: shard}
	p.Length = int64(stripes) * p.StripeSize()
	src := bytes.NewReader(randomBytes(1, int(p.Length)))
	emit := func(int, int, []byte) error { return nil }
	if err := Encode(src, p, emit); err != nil { // warm the codec cache
		b.Fatal(err)
	}
	b.SetBytes(p.Length)
	b.ReportAllocs()
	for b.Loop() {
		if err := Encode(src, p, emit); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode_20x10x64K(b *testing.B)  { benchmarkEncode(b, 20, 10, 64<<10, 8) }
func BenchmarkEncode_200x56x48K(b *testing.B) { benchmarkEncode(b, 200, 56, 48<<10, 2) }

// benchmarkReconstruct rebuilds the first `lost` data shards of one stripe;
// the bytes per operation are the stripe's data bytes. The same erasure
// pattern repeats, as when the same pages are missing for every stripe.
func benchmarkReconstruct(b *testing.B, k, m, shard, lost int) {
	p := Params{K: k, M: m, ShardSize: shard}
	p.Length = p.StripeSize()
	c, err := NewCoder(p)
	if err != nil {
		b.Fatal(err)
	}
	shards := make([][]byte, p.Shards())
	for i := range shards {
		shards[i] = randomBytes(uint64(i), shard)
	}
	if err := c.EncodeStripe(shards); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(p.StripeSize())
	b.ReportAllocs()
	for b.Loop() {
		for i := range lost {
			shards[i] = shards[i][:0] // missing, but the buffer is reused
		}
		if err := c.ReconstructData(shards); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReconstruct_20x10x64K(b *testing.B)  { benchmarkReconstruct(b, 20, 10, 64<<10, 10) }
func BenchmarkReconstruct_200x56x48K(b *testing.B) { benchmarkReconstruct(b, 200, 56, 48<<10, 56) }

// BenchmarkNewCodec_200x56 measures building a codec (what the shared
// codec cache saves per segment).
func BenchmarkNewCodec_200x56(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newCodec(200, 56); err != nil {
			b.Fatal(err)
		}
	}
}
