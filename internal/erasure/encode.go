package erasure

import (
	"errors"
	"fmt"
	"io"
)

// EmitFunc receives shard number shard (0 ≤ shard < K+M; data shards first)
// of stripe number stripe. data is valid only during the call: the encoder
// reuses its buffers. A non-nil error stops the encoding and is returned,
// wrapped, by Encode.
type EmitFunc func(stripe, shard int, data []byte) error

// Encode reads the p.Length bytes of a segment from src, stripe by stripe,
// and calls emit for every shard of every stripe in order: stripe 0 shards
// 0..K+M−1, then stripe 1, and so on. Stripe i holds the bytes
// [i·K·ShardSize, (i+1)·K·ShardSize) of the segment, data shard j the
// ShardSize bytes at j·ShardSize within the stripe; bytes past p.Length are
// zero. Bytes of src past p.Length are ignored; a src shorter than p.Length
// is an error wrapping io.ErrUnexpectedEOF.
//
// Memory use is O(min((K+M)·ShardSize, 32 MiB + ShardSize)), independent
// of p.Length.
func Encode(src io.ReaderAt, p Params, emit EmitFunc) error {
	c, err := NewCoder(p)
	if err != nil {
		return err
	}
	return c.Encode(src, emit)
}

// Encode is the package-level Encode with c's parameters.
func (c *Coder) Encode(src io.ReaderAt, emit EmitFunc) error {
	if c.wide() {
		return c.encodeWide(src, emit)
	}
	st := c.newStripe()
	for i := range c.p.Stripes() {
		if err := c.fillStripe(st, src, i); err != nil {
			return err
		}
		if err := c.emitStripe(st, i, emit); err != nil {
			return err
		}
	}
	return nil
}

// stripe is one stripe's buffer: K+M shards cut from one allocation.
type stripe struct {
	buf    []byte   // (K+M)·ShardSize bytes
	shards [][]byte // K+M views into buf
}

func (c *Coder) newStripe() *stripe {
	size := c.p.ShardSize
	st := &stripe{buf: make([]byte, c.p.Shards()*size)}
	st.shards = make([][]byte, c.p.Shards())
	for i := range st.shards {
		st.shards[i] = st.buf[i*size : (i+1)*size : (i+1)*size]
	}
	return st
}

// fillStripe reads stripe i from src into st, zero-pads it and computes its
// parity.
func (c *Coder) fillStripe(st *stripe, src io.ReaderAt, i int) error {
	off, n := c.p.stripeSpan(i)
	if err := readFull(src, st.buf[:n], off); err != nil {
		return fmt.Errorf("reading stripe %d at offset %d: %w", i, off, err)
	}
	clear(st.buf[n:c.p.StripeSize()])
	if err := c.EncodeStripe(st.shards); err != nil {
		return fmt.Errorf("encoding stripe %d: %w", i, err)
	}
	return nil
}

// readFull fills buf from src at off, turning a short read into
// io.ErrUnexpectedEOF.
func readFull(src io.ReaderAt, buf []byte, off int64) error {
	if len(buf) == 0 {
		return nil
	}
	n, err := src.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d of %d bytes: %w", n, len(buf), err)
}

// emitStripe hands the shards of stripe i to emit in order.
func (c *Coder) emitStripe(st *stripe, i int, emit EmitFunc) error {
	for j, s := range st.shards {
		if err := emit(i, j, s); err != nil {
			return fmt.Errorf("emitting stripe %d shard %d: %w", i, j, err)
		}
	}
	return nil
}
