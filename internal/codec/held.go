package codec

import (
	"errors"
	"fmt"
	"os"
)

// Memory held for incomplete stripes.
//
// Blocks wait in memory until their stripe has k of them. A large segment
// arriving in random order, or a hostile page of tiny blocks of stripes
// that never complete (k = 255, one byte per shard: 300 bytes of page for
// a stripe that would need 255 of them), would hold unbounded memory. So
// shard bytes beyond MaxHeldBytes go to a spill file per segment, and the
// number of blocks held in all is bounded by MaxHeldBlocks (each costs a
// little memory even when spilled); past it, new blocks are refused.
const (
	// MaxHeldBytes bounds the shard bytes of incomplete stripes kept in
	// memory, all segments together: 256 MiB.
	MaxHeldBytes = 256 << 20
	// MaxHeldBlocks bounds the blocks of incomplete stripes held, in
	// memory or spilled: one million (a 48 GB backup in 48 KiB blocks
	// arriving in the worst order), a few hundred MB of bookkeeping.
	MaxHeldBlocks = 1_000_000
	// MaxSegments bounds the segment versions one assembler tracks: a
	// site has a few segments per generation, and recovery sees a few
	// hundred generations at most.
	MaxSegments = 4096
)

// heldBytesLimit is MaxHeldBytes; tests lower it to exercise spilling.
var heldBytesLimit int64 = MaxHeldBytes

// ErrTooMuch is returned for a block refused because recovery already
// holds MaxHeldBlocks blocks of incomplete stripes, or MaxSegments
// segment versions.
var ErrTooMuch = errors.New("too many incomplete blocks or segment versions held")

// held is an assembler's budget, shared by its segments (under its lock).
type held struct {
	bytes  int64 // shard bytes in memory
	blocks int   // blocks held, in memory or spilled
}

// hold keeps a shard for an incomplete stripe, in memory while the
// budget allows (a copy, unless owned: nothing else refers to data),
// else in the spill file.
func (s *segment) hold(data []byte, id sum, at int64, owned bool) (*piece, error) {
	if s.held.blocks >= MaxHeldBlocks {
		return nil, fmt.Errorf("%w (%d blocks)", ErrTooMuch, MaxHeldBlocks)
	}
	p := &piece{sum: id, time: at}
	if s.held.bytes+int64(len(data)) <= heldBytesLimit {
		p.data = data
		if !owned {
			p.data = append([]byte(nil), data...)
		}
		s.held.bytes += int64(len(data))
	} else if err := s.spillPiece(p, data); err != nil {
		return nil, err
	}
	s.held.blocks++
	return p, nil
}

func (s *segment) spillPiece(p *piece, data []byte) error {
	if s.spill == nil {
		f, err := os.CreateTemp(s.tempDir, "lazarus-held-*")
		if err != nil {
			return fmt.Errorf("segment %q: %w", s.layout.Name, err)
		}
		os.Remove(f.Name())
		s.spill = f
	}
	if _, err := s.spill.WriteAt(data, s.spilled); err != nil {
		return fmt.Errorf("segment %q: spilling a block: %w", s.layout.Name, err)
	}
	p.off, s.spilled = s.spilled, s.spilled+int64(len(data))
	return nil
}

// pieceData returns a held shard, read back if it was spilled.
func (s *segment) pieceData(p *piece) ([]byte, error) {
	if p.data != nil {
		return p.data, nil
	}
	buf := make([]byte, s.params.ShardSize)
	if _, err := s.spill.ReadAt(buf, p.off); err != nil {
		return nil, fmt.Errorf("segment %q: reading a spilled block: %w", s.layout.Name, err)
	}
	return buf, nil
}

// release gives the budget of a stripe's pieces back.
func (s *segment) release(st *stripe) {
	for _, p := range st.pieces {
		if p.data != nil {
			s.held.bytes -= int64(len(p.data))
		}
		s.held.blocks--
	}
}
