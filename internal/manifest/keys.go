package manifest

import "github.com/lazarus-preserve/lazarus/internal/block"

// SegmentKey names one segment version: blocks of the same key rebuild the
// same ciphertext, whichever generation's manifest names it.
type SegmentKey struct {
	ID   Digest
	Name string
}

// BlockKey names one block of a segment version: its segment, stripe and
// shard.
type BlockKey struct {
	Segment SegmentKey
	Stripe  uint32
	Shard   uint16
}

// SegmentKeyOf is the key of the segment version a block layout names.
func SegmentKeyOf(l block.Layout) SegmentKey {
	return SegmentKey{ID: Digest(l.SegmentID), Name: l.Name}
}
