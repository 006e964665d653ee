package codec

import (
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Generation identifies the generation that produces a segment version.
type Generation struct {
	ID   manifest.ID
	Time time.Time
}

// Encoded is one block as Blocks yields it: valid only until the next
// one is yielded.
type Encoded struct {
	*block.Block        // what it is
	Raw          []byte // the complete block, as a bundle stores it
}

// Comment is the block as it goes into a page: its armored HTML comment
// (BlockComment of Raw), a new slice the caller may keep.
func (e Encoded) Comment() ([]byte, error) { return BlockComment(e.Raw) }

// BlockComment armors a complete block as the HTML comment that carries
// it in a page (FORMAT §9): what Scan and AddPage read back.
func BlockComment(raw []byte) ([]byte, error) { return htmlblock.Armor(htmlblock.KindBlock, raw) }

// ManifestComment armors a signed manifest envelope as the HTML comment
// that carries it in a page.
func ManifestComment(env []byte) ([]byte, error) { return htmlblock.Armor(htmlblock.KindManifest, env) }

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

// Blocks erasure-codes the sealed segment with parameters p and yields
// every block of every stripe, in stripe and shard order, signed by
// signer (nil only for unsigned public segments), then a nil error; or
// the error that stopped it. Memory stays at one stripe whatever the
// segment size.
func (s *Sealed) Blocks(gen Generation, p erasure.Params, signer *keys.Signer) iter.Seq2[Encoded, error] {
	return func(yield func(Encoded, error) bool) {
		if err := s.encode(gen, p, signer, yield); err != nil && !errors.Is(err, errStopped) {
			yield(Encoded{}, err)
		}
	}
}

// errStopped is how encode learns that the caller stopped ranging.
var errStopped = errors.New("stopped")

func (s *Sealed) encode(gen Generation, p erasure.Params, signer *keys.Signer, yield func(Encoded, error) bool) error {
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
		if !yield(Encoded{Block: b, Raw: buf}, nil) {
			return errStopped
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopped) {
		return fmt.Errorf("segment %q: encoding: %w", s.Name, err)
	}
	return err
}

// Segment returns the manifest entry for s encoded by gen with p.
func (s *Sealed) Segment(gen Generation, p erasure.Params) manifest.Segment {
	return manifest.Segment{
		Name: s.Name, Kind: s.Kind.String(), ID: s.ID, Generation: gen.ID, Time: gen.Time.UTC().Truncate(time.Second),
		Length: s.Length, Code: "rs8", K: p.K, M: p.M, ShardSize: p.ShardSize, Stripes: p.Stripes(),
		TarSize: s.TarSize, Files: len(s.Files),
	}
}
