package erasure

import (
	"errors"
	"fmt"
	"math"
)

// CodeRS8 identifies the only erasure code this package implements:
// systematic Reed-Solomon over GF(2^8) with reducing polynomial 0x11D and the
// Vandermonde-derived encoding matrix that klauspost/reedsolomon builds with
// its default options. Formats that record the code record this number.
const CodeRS8 = 1

const (
	// MaxShards is the largest number of shards (data plus parity) in one
	// stripe. Above it klauspost/reedsolomon silently switches to a different
	// code (Leopard GF(2^16)), so this package never goes there.
	MaxShards = 256

	// MaxShardSize is the largest shard size in bytes (16 MiB). One shard
	// becomes one block in one web page, so real shards are far smaller.
	MaxShardSize = 16 << 20

	// MaxStripes is the largest number of stripes in one segment, so that a
	// stripe index always fits an unsigned 32-bit field.
	MaxStripes = math.MaxUint32
)

// ErrInvalidParams is wrapped by every error that rejects a Params value.
var ErrInvalidParams = errors.New("invalid erasure parameters")

// Params describes how one segment of Length bytes is cut into stripes of K
// data shards and M parity shards of ShardSize bytes each. Every stripe of a
// segment has the same K, M and ShardSize; the data of the last stripe is
// zero-padded past Length.
type Params struct {
	K         int   // data shards per stripe, 1 ≤ K
	M         int   // parity shards per stripe, 0 ≤ M, K+M ≤ MaxShards
	ShardSize int   // bytes per shard, 1 ≤ ShardSize ≤ MaxShardSize
	Length    int64 // exact segment length in bytes, 0 ≤ Length
}

// NewParams returns validated parameters for callers that choose k and m
// themselves (for example m = number of carrier pages − k).
func NewParams(length int64, k, m, shardSize int) (Params, error) {
	p := Params{K: k, M: m, ShardSize: shardSize, Length: length}
	if err := p.Validate(); err != nil {
		return Params{}, err
	}
	return p, nil
}

// Validate reports whether p is usable. It never panics, whatever the
// field values, and guards every product it later relies on against
// overflow.
func (p Params) Validate() error {
	switch {
	case p.K < 1:
		return invalidf("k = %d is less than 1", p.K)
	case p.M < 0:
		return invalidf("m = %d is negative", p.M)
	case p.K > MaxShards || p.M > MaxShards || p.K+p.M > MaxShards:
		return invalidf("k+m = %d exceeds %d shards per stripe", int64(p.K)+int64(p.M), MaxShards)
	case p.ShardSize < 1:
		return invalidf("shard size %d is less than 1 byte", p.ShardSize)
	case p.ShardSize > MaxShardSize:
		return invalidf("shard size %d exceeds the limit of %d bytes", p.ShardSize, MaxShardSize)
	case p.Length < 0:
		return invalidf("length %d is negative", p.Length)
	}
	stripes := p.stripes64()
	if stripes > stripeLimit() {
		return invalidf("%d stripes exceed the limit of %d", stripes, stripeLimit())
	}
	if stripes > math.MaxInt64/p.StripeSize() {
		return invalidf("length %d padded to whole stripes overflows int64", p.Length)
	}
	return nil
}

// stripeLimit is MaxStripes, lowered on 32-bit platforms to what an int
// holds.
func stripeLimit() int64 {
	return min(MaxStripes, math.MaxInt)
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidParams, fmt.Sprintf(format, args...))
}

// StripeSize returns the number of data bytes in one stripe, K·ShardSize.
func (p Params) StripeSize() int64 {
	return int64(p.K) * int64(p.ShardSize)
}

// Shards returns the number of shards in one stripe, K+M.
func (p Params) Shards() int {
	return p.K + p.M
}

// Stripes returns the number of stripes, max(1, ⌈Length / (K·ShardSize)⌉).
// A zero-length segment still has one stripe, all zero padding. The result
// is meaningful only for valid parameters.
func (p Params) Stripes() int {
	return int(p.stripes64())
}

// TotalShards returns the number of shards in the whole segment,
// Stripes·(K+M).
func (p Params) TotalShards() int64 {
	return int64(p.Stripes()) * int64(p.Shards())
}

// stripes64 is Stripes without the conversion to int, safe for any
// positive K and ShardSize and any non-negative Length.
func (p Params) stripes64() int64 {
	size := p.StripeSize()
	n := p.Length / size
	if p.Length%size != 0 {
		n++
	}
	return max(1, n)
}

// stripeSpan returns the offset of stripe i's first data byte and the
// number of its data bytes that lie inside Length (the rest is padding).
func (p Params) stripeSpan(i int) (off int64, n int) {
	size := p.StripeSize()
	off = int64(i) * size
	return off, int(min(size, max(0, p.Length-off)))
}

// String describes p for logs and error messages.
func (p Params) String() string {
	return fmt.Sprintf("rs8 k=%d m=%d shard=%d length=%d", p.K, p.M, p.ShardSize, p.Length)
}
