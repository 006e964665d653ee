package injector

import (
	"fmt"
	"io"
	"os"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// segRef names one block of one segment version.
type segRef struct {
	Seg manifest.Digest
	manifest.BlockRef
}

// blockStore keeps armored block comments in a temporary file, so pages
// can be assembled from any mix of blocks without holding them all in
// memory.
type blockStore struct {
	f     *os.File
	size  int64
	index map[segRef][2]int64 // offset, length
	check func() error        // called before each block; an error stops encode
}

// newBlockStore makes a store in dir; check is called before each block
// is encoded, and its error stops the encoding.
func newBlockStore(dir string, check func() error) (*blockStore, error) {
	f, err := os.CreateTemp(dir, "blocks-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &blockStore{f: f, index: map[segRef][2]int64{}, check: check}, nil
}

func (s *blockStore) close() { s.f.Close() }

// encode erasure-codes a sealed segment as its origin generation produced
// it and stores the armored comment of every block that want selects (nil:
// all). raw, if not nil, receives every raw block, selected or not.
func (s *blockStore) encode(sealed *codec.Sealed, seg *segmentInfo, signer *keys.Signer, want func(manifest.BlockRef) bool, raw func(manifest.BlockRef, []byte) error) error {
	p, err := segParams(seg)
	if err != nil {
		return err
	}
	origin := codec.Generation{ID: seg.Generation, Time: seg.Time}
	return sealed.Encode(origin, p, signer, func(b *block.Block, enc []byte) error {
		if err := s.check(); err != nil {
			return err
		}
		ref := manifest.BlockRef{Segment: b.Name, Stripe: b.Stripe, Shard: b.Shard}
		if raw != nil {
			if err := raw(ref, enc); err != nil {
				return err
			}
		}
		if want != nil && !want(ref) {
			return nil
		}
		c, err := htmlblock.Armor(htmlblock.KindBlock, enc)
		if err != nil {
			return err
		}
		if _, err := s.f.WriteAt(c, s.size); err != nil {
			return fmt.Errorf("block store: %w", err)
		}
		s.index[segRef{seg.ID, ref}] = [2]int64{s.size, int64(len(c))}
		s.size += int64(len(c))
		return nil
	})
}

// comment returns the stored comment of a block.
func (s *blockStore) comment(r segRef) ([]byte, error) {
	at, ok := s.index[r]
	if !ok {
		return nil, fmt.Errorf("block %s of segment version %s was not encoded", r.BlockRef, r.Seg)
	}
	buf := make([]byte, at[1])
	if _, err := s.f.ReadAt(buf, at[0]); err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}
