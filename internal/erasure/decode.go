package erasure

import (
	"errors"
	"fmt"
	"io"
)

// ErrBadPadding is wrapped by the error returned when the bytes of the last
// stripe past the segment length are not zero after reconstruction: the
// shards do not belong to these parameters, or they were altered.
var ErrBadPadding = errors.New("non-zero padding")

// ReconstructData rebuilds the missing data shards of one stripe in place.
//
// shards must hold K+M entries. An entry whose length is not ShardSize is
// missing: nil and zero-length entries are missing, and entries of any
// other length are set to nil first. A missing data entry is replaced by a
// rebuilt shard, reusing its capacity only when it has length 0 and
// capacity ≥ ShardSize. Missing parity entries stay missing.
//
// The caller must pass only shards known to be good (blocks that fail their
// hash are missing): Reed-Solomon erasure decoding cannot tell a bad shard
// from a good one. With fewer than K good shards the error wraps
// ErrTooFewShards and says how many there are.
func (c *Coder) ReconstructData(shards [][]byte) error {
	if len(shards) != c.p.Shards() {
		return fmt.Errorf("%w: got %d, want k+m = %d", ErrShardCount, len(shards), c.p.Shards())
	}
	have, haveData, missing := c.present(shards)
	if have < c.p.K {
		return fmt.Errorf("%w: have %d of the %d shards needed", ErrTooFewShards, have, c.p.K)
	}
	if haveData == c.p.K {
		return nil
	}
	rs, err := sharedCodec(c.p.K, c.p.M, &missing)
	if err != nil {
		return err
	}
	if err := rs.ReconstructData(shards); err != nil {
		return fmt.Errorf("reconstructing stripe data: %w", err)
	}
	return nil
}

// present drops entries of the wrong length, counts the good shards in
// total and among the data shards, and returns the missing ones.
func (c *Coder) present(shards [][]byte) (have, haveData int, missing pattern) {
	for i, s := range shards {
		if len(s) != c.p.ShardSize {
			if len(s) != 0 {
				shards[i] = nil
			}
			missing[i/64] |= 1 << (i % 64)
			continue
		}
		have++
		if i < c.p.K {
			haveData++
		}
	}
	return have, haveData, missing
}

// WriteStripe rebuilds the data of stripe number stripe from shards (as in
// ReconstructData) and writes it to dst at offset stripe·K·ShardSize,
// truncated to the segment length. It checks that the padding of the last
// stripe is zero before writing anything.
func (c *Coder) WriteStripe(dst io.WriterAt, stripe int, shards [][]byte) error {
	if stripe < 0 || stripe >= c.p.Stripes() {
		return fmt.Errorf("stripe %d out of range [0, %d)", stripe, c.p.Stripes())
	}
	if err := c.ReconstructData(shards); err != nil {
		return fmt.Errorf("stripe %d: %w", stripe, err)
	}
	off, n := c.p.stripeSpan(stripe)
	if err := c.checkPadding(shards[:c.p.K], n); err != nil {
		return fmt.Errorf("stripe %d: %w", stripe, err)
	}
	for i, s := range shards[:c.p.K] {
		start := i * c.p.ShardSize
		if start >= n {
			break
		}
		if _, err := dst.WriteAt(s[:min(len(s), n-start)], off+int64(start)); err != nil {
			return fmt.Errorf("stripe %d: writing shard %d: %w", stripe, i, err)
		}
	}
	return nil
}

// CheckPadding reports an error wrapping ErrBadPadding if the data shards
// of stripe number stripe have a non-zero byte past the segment length
// (only the last stripe has such bytes): the shards do not belong
// together.
func (c *Coder) CheckPadding(stripe int, data [][]byte) error {
	if stripe < 0 || stripe >= c.p.Stripes() {
		return fmt.Errorf("stripe %d out of range [0, %d)", stripe, c.p.Stripes())
	}
	_, n := c.p.stripeSpan(stripe)
	return c.checkPadding(data, n)
}

// checkPadding reports an error if any data byte at or past position n of
// the stripe is not zero.
func (c *Coder) checkPadding(data [][]byte, n int) error {
	for i, s := range data {
		start := i * c.p.ShardSize
		for j := max(0, n-start); j < len(s); j++ {
			if s[j] != 0 {
				return fmt.Errorf("%w: byte %d of the stripe is %#02x", ErrBadPadding, start+j, s[j])
			}
		}
	}
	return nil
}

// Reconstruct is ReconstructData with a Coder built for p. Callers that
// rebuild many stripes should keep one Coder instead.
func Reconstruct(p Params, shards [][]byte) error {
	c, err := NewCoder(p)
	if err != nil {
		return err
	}
	return c.ReconstructData(shards)
}

// WriteStripe is Coder.WriteStripe with a Coder built for p. Callers that
// rebuild many stripes should keep one Coder instead.
func WriteStripe(dst io.WriterAt, p Params, stripe int, shards [][]byte) error {
	c, err := NewCoder(p)
	if err != nil {
		return err
	}
	return c.WriteStripe(dst, stripe, shards)
}
