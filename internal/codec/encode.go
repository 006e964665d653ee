package codec

import (
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Generation identifies the generation that produces a segment version.
type Generation struct {
	ID   manifest.ID
	Time time.Time
}

// EmitFunc receives each encoded block in stripe and shard order. enc is
// the complete block (what gets armored); b describes it. Neither may be
// retained after the call returns.
type EmitFunc func(b *block.Block, enc []byte) error

// Params plans the erasure parameters for the sealed segment with the
// given block budget (bytes of shard per block) and redundancy (parity
// shards per data shard).
func (s *Sealed) Params(maxShard int, redundancy float64) (erasure.Params, error) {
	return erasure.Plan(s.Length, maxShard, redundancy)
}

// Layout returns the layout every block of s carries when encoded by gen
// with parameters p and signed by signer (nil: unsigned).
func (s *Sealed) Layout(gen Generation, p erasure.Params, signer *keys.Signer) block.Layout {
	l := block.Layout{
		Kind: s.Kind, Code: block.CodeRS8, Cipher: uint8(s.Cipher),
		Generation: gen.ID, Time: gen.Time.Unix(), SegmentID: s.ID,
		Length: uint64(s.Length), K: uint16(p.K), M: uint16(p.M), ShardSize: uint32(p.ShardSize),
		Name: s.Name,
	}
	if signer != nil {
		l.Salt, l.KeyID = signer.Salt(), signer.KeyID()
	}
	return l
}

// Encode erasure-codes the sealed segment with parameters p and emits every
// block of every stripe, signed by signer (nil only for unsigned public
// segments). Memory stays at one stripe whatever the segment size.
func (s *Sealed) Encode(gen Generation, p erasure.Params, signer *keys.Signer, emit EmitFunc) error {
	if p.Length != s.Length {
		return fmt.Errorf("segment %q: parameters are for %d bytes, ciphertext has %d", s.Name, p.Length, s.Length)
	}
	if s.Cipher.Encrypted() && signer == nil {
		return fmt.Errorf("segment %q: encrypted segments must be signed", s.Name)
	}
	b := &block.Block{Layout: s.Layout(gen, p, signer)}
	var sign func([]byte) []byte
	if signer != nil {
		sign = func(d []byte) []byte { return signer.Sign("block", d) }
	}
	var buf []byte
	err := erasure.Encode(s.spool, p, func(stripe, shard int, data []byte) error {
		b.Stripe, b.Shard, b.Data = uint32(stripe), uint16(shard), data
		var err error
		if buf, err = b.Append(buf[:0], sign); err != nil {
			return err
		}
		return emit(b, buf)
	})
	if err != nil {
		return fmt.Errorf("segment %q: encoding: %w", s.Name, err)
	}
	return nil
}

// Segment returns the manifest entry for s encoded by gen with p.
func (s *Sealed) Segment(gen Generation, p erasure.Params) manifest.Segment {
	return manifest.Segment{
		Name: s.Name, Kind: s.Kind.String(), ID: s.ID, Generation: gen.ID, Time: gen.Time.UTC().Truncate(time.Second),
		Length: s.Length, Code: "rs8", K: p.K, M: p.M, ShardSize: p.ShardSize, Stripes: p.Stripes(),
		TarSize: s.TarSize, Files: len(s.Files),
	}
}
