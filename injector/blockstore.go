package injector

import (
	"fmt"
	"io"
	"os"

	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// segRef names one block of one segment version.
type segRef struct {
	Seg manifest.Digest
	manifest.BlockRef
}

// blockStore keeps armored block comments, so pages can be assembled from
// any mix of blocks: in memory up to blockMemory bytes, in a temporary
// file beyond, without holding them all in memory. comment may be called
// from several goroutines once encoding is done.
type blockStore struct {
	dir      string
	inMemory bool     // the comments wanted fit in blockMemory
	mem      []byte   // the comments while they fit in blockMemory
	f        *os.File // all of them once they do not; nil until then
	size     int64
	index    map[segRef][2]int64 // offset, length
	check    func() error        // called before each block; an error stops encode
}

// blockMemory is how many bytes of comments a store keeps in memory
// before moving them to a file: a small site's blocks never touch the
// disk (a file's every extension is a journaled inode update), a large
// one's cost no more memory than this.
const blockMemory = 48 << 20

// newBlockStore makes a store for about want bytes of comments, whose
// file, if it needs one, is in dir; check is called before each block is
// encoded, and its error stops the encoding.
func newBlockStore(dir string, want int64, check func() error) *blockStore {
	s := &blockStore{dir: dir, index: map[segRef][2]int64{}, check: check, inMemory: want <= blockMemory}
	if s.inMemory {
		s.mem = make([]byte, 0, want)
	}
	return s
}

func (s *blockStore) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// add appends a comment and returns its offset.
func (s *blockStore) add(c []byte) (int64, error) {
	at := s.size
	if s.f == nil && (!s.inMemory || s.size+int64(len(c)) > blockMemory) {
		f, err := os.CreateTemp(s.dir, "blocks-*")
		if err != nil {
			return 0, fmt.Errorf("block store: %w", err)
		}
		os.Remove(f.Name())
		s.f = f
		if _, err := f.WriteAt(s.mem, 0); err != nil {
			return 0, fmt.Errorf("block store: %w", err)
		}
		s.mem, s.inMemory = nil, false
	}
	if s.f != nil {
		if _, err := s.f.WriteAt(c, at); err != nil {
			return 0, fmt.Errorf("block store: %w", err)
		}
	} else {
		s.mem = append(s.mem, c...)
	}
	s.size += int64(len(c))
	return at, nil
}

// encode erasure-codes a sealed segment as its origin generation produced
// it and stores the armored comment of every block that want selects (nil:
// all). raw, if not nil, receives every raw block, selected or not.
func (s *blockStore) encode(sealed *codec.Sealed, seg *segmentInfo, signer *keys.Signer, want func(manifest.BlockRef) bool, raw func(manifest.BlockRef, []byte) error) error {
	p, err := segParams(seg)
	if err != nil {
		return err
	}
	origin := codec.Generation{ID: seg.Generation, Time: seg.Time}
	for b, err := range sealed.Blocks(origin, p, signer) {
		if err != nil {
			return err
		}
		if err := s.check(); err != nil {
			return err
		}
		ref := manifest.BlockRef{Segment: b.Name, Stripe: b.Stripe, Shard: b.Shard}
		if raw != nil {
			if err := raw(ref, b.Raw); err != nil {
				return err
			}
		}
		if want != nil && !want(ref) {
			continue
		}
		c, err := b.Comment()
		if err != nil {
			return err
		}
		at, err := s.add(c)
		if err != nil {
			return err
		}
		s.index[segRef{seg.ID, ref}] = [2]int64{at, int64(len(c))}
	}
	return nil
}

// comment returns the stored comment of a block.
func (s *blockStore) comment(r segRef) ([]byte, error) {
	at, ok := s.index[r]
	if !ok {
		return nil, fmt.Errorf("block %s of segment version %s was not encoded", r.BlockRef, r.Seg)
	}
	if s.f == nil {
		return s.mem[at[0] : at[0]+at[1] : at[0]+at[1]], nil
	}
	buf := make([]byte, at[1])
	if _, err := s.f.ReadAt(buf, at[0]); err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}
