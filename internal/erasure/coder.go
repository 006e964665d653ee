package erasure

import (
	"errors"
	"fmt"
)

// ErrTooFewShards is wrapped by the error returned when fewer than K shards
// of a stripe survive, so the stripe cannot be rebuilt.
var ErrTooFewShards = errors.New("too few shards")

// ErrShardCount is wrapped by the error returned when a stripe is passed
// with a slice of shards whose length is not K+M.
var ErrShardCount = errors.New("wrong number of shards")

// A Coder encodes and rebuilds the stripes of one segment. It is cheap to
// make: the klauspost codecs behind it are shared between Coders of the
// same K and M. A Coder is safe for concurrent use.
type Coder struct {
	p Params
}

// NewCoder validates p and returns a Coder for it.
func NewCoder(p Params) (*Coder, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Coder{p: p}, nil
}

// Params returns the parameters c was built for.
func (c *Coder) Params() Params {
	return c.p
}

// EncodeStripe computes the M parity shards of one stripe in place.
// shards must hold K+M slices of exactly ShardSize bytes; the first K are
// the data, the last M are overwritten with parity. With M = 0 it only
// checks the shapes.
func (c *Coder) EncodeStripe(shards [][]byte) error {
	if err := c.checkFull(shards); err != nil {
		return err
	}
	if c.p.M == 0 {
		return nil
	}
	rs, err := sharedCodec(c.p.K, c.p.M, nil)
	if err != nil {
		return err
	}
	return rs.Encode(shards)
}

// checkFull reports whether shards is a complete stripe.
func (c *Coder) checkFull(shards [][]byte) error {
	if len(shards) != c.p.Shards() {
		return fmt.Errorf("%w: got %d, want k+m = %d", ErrShardCount, len(shards), c.p.Shards())
	}
	for i, s := range shards {
		if len(s) != c.p.ShardSize {
			return fmt.Errorf("shard %d has %d bytes, want %d", i, len(s), c.p.ShardSize)
		}
	}
	return nil
}
