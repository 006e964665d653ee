package erasure

import (
	"errors"
	"math"
	"strings"
	"testing"
)

type validateCase struct {
	name string
	p    Params
	want string // substring of the error, "" for valid
}

func TestValidate(t *testing.T) {
	tests := []validateCase{
		{"minimal", Params{K: 1, M: 0, ShardSize: 1, Length: 0}, ""},
		{"typical", Params{K: 20, M: 10, ShardSize: 64 << 10, Length: 100 << 20}, ""},
		{"k+m = 256", Params{K: 200, M: 56, ShardSize: 1, Length: 1}, ""},
		{"k = 256 no parity", Params{K: 256, M: 0, ShardSize: 1, Length: 1}, ""},
		{"max shard size", Params{K: 1, M: 1, ShardSize: MaxShardSize, Length: 1}, ""},
		{"largest padded length", Params{K: 256, M: 0, ShardSize: MaxShardSize, Length: math.MaxInt64 - 1<<32 + 1}, ""},
		{"k = 0", Params{K: 0, M: 1, ShardSize: 1}, "k = 0 is less than 1"},
		{"k negative", Params{K: -5, M: 1, ShardSize: 1}, "k = -5 is less than 1"},
		{"m negative", Params{K: 1, M: -1, ShardSize: 1}, "m = -1 is negative"},
		{"k+m = 257", Params{K: 200, M: 57, ShardSize: 1}, "k+m = 257 exceeds 256 shards per stripe"},
		{"k+m = 300", Params{K: 150, M: 150, ShardSize: 1}, "k+m = 300 exceeds 256 shards per stripe"},
		{"k = 257", Params{K: 257, M: 0, ShardSize: 1}, "k+m = 257 exceeds 256"},
		{"k+m overflows int", Params{K: math.MaxInt, M: math.MaxInt, ShardSize: 1}, "exceeds 256"},
		{"shard size 0", Params{K: 1, M: 1, ShardSize: 0}, "shard size 0 is less than 1 byte"},
		{"shard size negative", Params{K: 1, M: 1, ShardSize: -1}, "shard size -1 is less than 1 byte"},
		{"shard size too big", Params{K: 1, M: 1, ShardSize: MaxShardSize + 1}, "shard size 16777217 exceeds the limit of 16777216 bytes"},
		{"length negative", Params{K: 1, M: 1, ShardSize: 1, Length: -1}, "length -1 is negative"},
		{"too many stripes", Params{K: 1, M: 0, ShardSize: 1, Length: MaxStripes + 1}, "4294967296 stripes exceed the limit of"},
		{"max length tiny shards", Params{K: 1, M: 0, ShardSize: 1, Length: math.MaxInt64}, "stripes exceed the limit"},
	}
	if math.MaxInt > MaxStripes { // on 32-bit platforms the stripe limit comes first
		tests = append(tests, validateCase{"padded length overflows",
			Params{K: 256, M: 0, ShardSize: MaxShardSize, Length: math.MaxInt64}, "overflows int64"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate(%v) = %v, want nil", tt.p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate(%v) = %v, want error containing %q", tt.p, err, tt.want)
			}
			if !errors.Is(err, ErrInvalidParams) {
				t.Errorf("Validate(%v) = %v, does not wrap ErrInvalidParams", tt.p, err)
			}
		})
	}
}

// TestValidateMaxStripes checks the stripe limit itself, which on 32-bit
// platforms is lowered to what an int holds.
func TestValidateMaxStripes(t *testing.T) {
	err := Params{K: 1, M: 0, ShardSize: 1, Length: MaxStripes}.Validate()
	if fits := math.MaxInt >= MaxStripes; fits != (err == nil) {
		t.Errorf("Validate(%d stripes) = %v with MaxInt = %d", int64(MaxStripes), err, math.MaxInt)
	}
}

func TestNewParams(t *testing.T) {
	p, err := NewParams(1000, 10, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := Params{K: 10, M: 5, ShardSize: 7, Length: 1000}
	if p != want {
		t.Errorf("NewParams = %+v, want %+v", p, want)
	}
	// Invalid values are rejected and yield the zero Params.
	p, err = NewParams(1000, 0, 5, 7)
	if !errors.Is(err, ErrInvalidParams) || p != (Params{}) {
		t.Errorf("NewParams(k=0) = %+v, %v; want zero Params and ErrInvalidParams", p, err)
	}
}

func TestStripes(t *testing.T) {
	tests := []struct {
		k, s    int
		length  int64
		stripes int64
	}{
		{1, 1, 0, 1}, // an empty segment still has one stripe of padding
		{1, 1, 1, 1},
		{1, 1, 2, 2},
		{4, 16, 63, 1},
		{4, 16, 64, 1},
		{4, 16, 65, 2},
		{4, 16, 128, 2},
		{4, 16, 129, 3},
		{256, MaxShardSize, 1 << 40, 256},
		{1, 1, MaxStripes, MaxStripes},
	}
	for _, tt := range tests {
		if tt.stripes > math.MaxInt {
			continue // Validate rejects this on 32-bit platforms
		}
		p := Params{K: tt.k, M: 1, ShardSize: tt.s, Length: tt.length}
		if got := int64(p.Stripes()); got != tt.stripes {
			t.Errorf("%v: Stripes() = %d, want %d", p, got, tt.stripes)
		}
	}
}

func TestDerived(t *testing.T) {
	p := Params{K: 10, M: 5, ShardSize: 7, Length: 150}
	if got := p.StripeSize(); got != 70 {
		t.Errorf("StripeSize() = %d, want 70", got)
	}
	if got := p.Shards(); got != 15 {
		t.Errorf("Shards() = %d, want 15", got)
	}
	if got := p.TotalShards(); got != 45 {
		t.Errorf("TotalShards() = %d, want 45", got)
	}
	spans := []struct {
		off int64
		n   int
	}{{0, 70}, {70, 70}, {140, 10}}
	for i, want := range spans {
		off, n := p.stripeSpan(i)
		if off != want.off || n != want.n {
			t.Errorf("stripeSpan(%d) = %d, %d; want %d, %d", i, off, n, want.off, want.n)
		}
	}
	if got, want := p.String(), "rs8 k=10 m=5 shard=7 length=150"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
