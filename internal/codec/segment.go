package codec

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// unknownTime stands for a capture of unknown date: it ranks as the newest.
const unknownTime = math.MaxInt64

// segment is the reassembly state of one segment version.
//
// A stripe is rebuilt as soon as k distinct shards are in and its blocks
// are freed; the digest of each block used is kept, so a later block of
// the same shard that differs (signed by the same key, so a stolen key
// made one of them) is noticed. Such a stripe becomes contested: every
// version seen moves to an on-disk candidate store (see conflict.go) and
// the segment id decides between them. The spool is checked against the
// segment id once every stripe is rebuilt.
type segment struct {
	layout    block.Layout
	params    erasure.Params
	coder     *erasure.Coder
	tempDir   string
	spool     *os.File
	stripes   map[uint32]*stripe     // incomplete stripes
	done      map[uint32]*doneStripe // rebuilt, uncontested stripes
	alt       *altStore              // contested stripes; nil until a conflict
	held      *held                  // the assembler's budget for blocks of incomplete stripes
	spill     *os.File               // blocks of incomplete stripes past the memory budget
	spilled   int64                  // bytes written to spill
	blocks    int
	checked   bool     // the spool matches the segment id: final
	bad       bool     // every stripe rebuilt, but the spool does not match the id
	sumBuf    []byte   // codewordOf's buffer
	sumShards [][]byte // the codeword in it, of stripe sumIdx; nil if none
	sumIdx    uint32
	prefix    hash.Hash // SHA-256 of the spool's first hashed stripes (see hashPrefix)
	hashed    uint32
	// rewritten says a stripe was contested: its bytes in the spool may
	// have been written more than once (see StageEarly).
	rewritten bool
}

// stripe holds the blocks of an incomplete stripe, one per shard.
type stripe struct{ pieces map[uint16]*piece }

// piece is one block of an incomplete stripe: its shard in memory, or in
// the segment's spill file once the assembler's memory budget is spent.
type piece struct {
	data []byte // nil once spilled
	off  int64  // where in the spill file
	sum  sum    // the block's digest
	time int64  // capture time (Unix s)
}

// sum is a block digest shortened to 128 bits: enough to tell versions of
// one shard apart (a forger would need a second preimage).
type sum [16]byte

func sumOf(d [block.DigestSize]byte) sum { return sum(d[:16]) }

// doneStripe remembers a rebuilt stripe: the digest and capture time of
// each block used, and, once a late block needed them, the digests every
// other shard of the stripe must have.
type doneStripe struct {
	sums  []sum
	times []int64 // 0: that shard was not received
	full  bool    // sums holds every shard's digest
}

func newSegment(l block.Layout, tempDir string, h *held) (*segment, error) {
	p, err := erasure.NewParams(int64(l.Length), int(l.K), int(l.M), int(l.ShardSize))
	if err != nil {
		return nil, err
	}
	coder, err := erasure.NewCoder(p)
	if err != nil {
		return nil, err
	}
	return &segment{layout: l, params: p, coder: coder, tempDir: tempDir, held: h,
		stripes: map[uint32]*stripe{}, done: map[uint32]*doneStripe{}}, nil
}

// add stores one verified block captured at time at (Unix ns); owned
// says b.Data may be kept without a copy.
func (s *segment) add(b *block.Block, at int64, owned bool) (Outcome, error) {
	switch {
	case s.checked:
		return Redundant, nil // the segment id is matched: nothing can improve it
	case s.alt.has(b.Stripe):
		return s.addCandidate(b, at)
	case s.done[b.Stripe] != nil:
		return s.addLate(b, at)
	}
	st := s.stripes[b.Stripe]
	if st == nil {
		st = &stripe{pieces: map[uint16]*piece{}}
		s.stripes[b.Stripe] = st
	}
	if old := st.pieces[b.Shard]; old != nil {
		if old.sum == sumOf(b.Digest) {
			old.time = min(old.time, at)
			return Redundant, nil
		}
		cands, err := s.fromStripe(st)
		if err == nil {
			err = s.contest(b.Stripe, cands)
		}
		if err != nil {
			return Rejected, err
		}
		return s.addCandidate(b, at)
	}
	p, err := s.hold(b.Data, sumOf(b.Digest), at, owned)
	if err != nil {
		return Rejected, err
	}
	st.pieces[b.Shard] = p
	s.blocks++
	if len(st.pieces) < s.params.K {
		return Accepted, nil
	}
	return Accepted, s.rebuild(b.Stripe, st)
}

// addLate handles a block of a stripe already rebuilt: the same block
// again is redundant; a different version contests the stripe.
func (s *segment) addLate(b *block.Block, at int64) (Outcome, error) {
	d := s.done[b.Stripe]
	if d.sums[b.Shard] == (sum{}) && !d.full {
		shards, err := s.codewordOf(b.Stripe)
		if err != nil {
			return Rejected, err
		}
		if bytes.Equal(shards[b.Shard], b.Data) {
			// Its digest is the layout's Sum of these bytes (block.Parse
			// checked it), which fillSums would have computed.
			d.sums[b.Shard] = sumOf(b.Digest)
		} else if err := s.fillSums(b.Stripe, d); err != nil {
			return Rejected, err
		}
	}
	if d.sums[b.Shard] == sumOf(b.Digest) {
		if d.times[b.Shard] == 0 {
			d.times[b.Shard] = at
		}
		d.times[b.Shard] = min(d.times[b.Shard], at)
		return Redundant, nil
	}
	cands, err := s.fromDone(b.Stripe, d)
	if err != nil {
		return Rejected, err
	}
	delete(s.done, b.Stripe)
	if err := s.contest(b.Stripe, cands); err != nil {
		return Rejected, err
	}
	return s.addCandidate(b, at)
}

// rebuild reconstructs a stripe that has k shards and writes its data into
// the spool, then frees the shards. A stripe whose shards do not fit
// together (non-zero padding) is contested instead.
func (s *segment) rebuild(idx uint32, st *stripe) error {
	if err := s.openSpool(); err != nil {
		return err
	}
	n := s.params.Shards()
	shards, d := make([][]byte, n), &doneStripe{sums: make([]sum, n), times: make([]int64, n)}
	for i, p := range st.pieces {
		data, err := s.pieceData(p)
		if err != nil {
			return err
		}
		shards[i], d.sums[i], d.times[i] = data, p.sum, p.time
	}
	if err := s.coder.WriteStripe(s.spool, int(idx), shards); err != nil {
		cands, err := s.fromStripe(st)
		if err != nil {
			return err
		}
		return s.contest(idx, cands)
	}
	s.release(st)
	delete(s.stripes, idx)
	s.done[idx] = d
	if err := s.hashPrefix(idx, shards); err != nil {
		return err
	}
	if s.alt != nil {
		return s.maybeResolve(true)
	}
	return s.verifyIfComplete()
}

// hashPrefix hashes the spool's stripes in order as they are rebuilt,
// so that checking the segment id once the last one is needs no pass
// over the spool: stripe idx, just rebuilt, from its data in memory if
// it is the next one to hash, then those after it already rebuilt, read
// back. After a contest (a stripe may be written again) it stops, and
// matchesID reads the spool.
func (s *segment) hashPrefix(idx uint32, shards [][]byte) error {
	if s.rewritten {
		return nil
	}
	if s.prefix == nil {
		s.prefix = sha256.New()
	}
	size, z := s.params.StripeSize(), s.params.ShardSize
	for uint64(s.hashed) < s.layout.Stripes() && s.done[s.hashed] != nil {
		off := int64(s.hashed) * size
		n := min(size, int64(s.layout.Length)-off)
		if s.hashed != idx {
			if _, err := io.Copy(s.prefix, io.NewSectionReader(s.spool, off, n)); err != nil {
				return fmt.Errorf("segment %q: reading spool: %w", s.layout.Name, err)
			}
		}
		for i := 0; s.hashed == idx && int64(i*z) < n; i++ {
			s.prefix.Write(shards[i][:min(int64(z), n-int64(i*z))])
		}
		s.hashed++
	}
	return nil
}

func (s *segment) openSpool() error {
	if s.spool != nil {
		return nil
	}
	f, err := os.CreateTemp(s.tempDir, "lazarus-segment-*")
	if err != nil {
		return fmt.Errorf("segment %q: creating spool file: %w", s.layout.Name, err)
	}
	os.Remove(f.Name())
	s.spool = f
	return nil
}

// verifyIfComplete checks the spool against the segment id once every
// stripe is rebuilt and none is contested.
func (s *segment) verifyIfComplete() error {
	if uint64(len(s.done)) != s.layout.Stripes() {
		return nil
	}
	var ok bool
	var err error
	if !s.rewritten && uint64(s.hashed) == s.layout.Stripes() {
		ok = bytes.Equal(s.prefix.Sum(nil), s.layout.SegmentID[:])
	} else {
		ok, err = s.matchesID()
	}
	if err != nil {
		return err
	}
	s.checked, s.bad = ok, !ok
	return nil
}

// matchesID reports whether the spool hashes to the segment id.
func (s *segment) matchesID() (bool, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(s.spool, 0, int64(s.layout.Length))); err != nil {
		return false, fmt.Errorf("segment %q: reading spool: %w", s.layout.Name, err)
	}
	return bytes.Equal(h.Sum(nil), s.layout.SegmentID[:]), nil
}

// codeword reads a rebuilt stripe's data from the spool and computes its
// parity: every shard of the stripe, in a buffer of its own.
func (s *segment) codeword(idx uint32) ([][]byte, error) {
	return s.codewordIn(idx, make([]byte, s.params.Shards()*s.params.ShardSize))
}

// codewordIn is codeword in buf, of n × shard size bytes.
func (s *segment) codewordIn(idx uint32, buf []byte) ([][]byte, error) {
	n, z := s.params.Shards(), s.params.ShardSize
	shards := make([][]byte, n)
	off := int64(idx) * s.params.StripeSize()
	data := buf[:s.params.K*z]
	if m, err := s.spool.ReadAt(data, off); err != nil && !(err == io.EOF && off+int64(m) >= int64(s.layout.Length)) {
		return nil, fmt.Errorf("segment %q stripe %d: reading spool: %w", s.layout.Name, idx, err)
	}
	if end := int64(s.layout.Length) - off; end < int64(len(data)) {
		clear(data[max(0, end):]) // padding of the last stripe
	}
	for i := range shards {
		shards[i] = buf[i*z : (i+1)*z]
	}
	return shards, s.coder.EncodeStripe(shards)
}

// fillSums computes the digest of every shard of a rebuilt stripe.
func (s *segment) fillSums(idx uint32, d *doneStripe) error {
	shards, err := s.codewordOf(idx)
	if err != nil {
		return err
	}
	for i, sh := range shards {
		if d.sums[i] == (sum{}) {
			d.sums[i] = sumOf(s.layout.Sum(idx, uint16(i), sh))
		}
	}
	d.full = true
	return nil
}

// codewordOf returns the codeword of rebuilt stripe idx, computed in a
// buffer the segment keeps, and kept there for the stripe's next late
// blocks (they come together, on a page or a few): a late block is then
// compared with its shard, without hashing the stripe's missing shards.
func (s *segment) codewordOf(idx uint32) ([][]byte, error) {
	if s.sumShards != nil && s.sumIdx == idx {
		return s.sumShards, nil
	}
	if s.sumBuf == nil {
		s.sumBuf = make([]byte, s.params.Shards()*s.params.ShardSize)
	}
	s.sumShards = nil
	shards, err := s.codewordIn(idx, s.sumBuf)
	if err != nil {
		return nil, err
	}
	s.sumShards, s.sumIdx = shards, idx
	return shards, nil
}

func (s *segment) status() SegmentStatus {
	st := SegmentStatus{Layout: s.layout, Stripes: s.layout.Stripes(), Complete: uint64(len(s.done)), Blocks: s.blocks,
		Verified: s.checked, Mismatch: s.bad}
	for i, p := range s.stripes {
		st.short(StripeShort{Stripe: i, Have: len(p.pieces), Need: s.params.K})
	}
	for i, cands := range s.alt.byStripe() {
		st.Contested++
		if have := distinctShards(cands); have >= s.params.K {
			st.Complete++
		} else {
			st.short(StripeShort{Stripe: i, Have: have, Need: s.params.K})
		}
	}
	if s.checked {
		st.Complete = st.Stripes
	}
	return st
}

// maxListedShort bounds the short stripes a status lists.
const maxListedShort = 8

// short counts an incomplete stripe with blocks and keeps the first few
// by stripe index in Partial, in order.
func (st *SegmentStatus) short(p StripeShort) {
	st.Short++
	i := sort.Search(len(st.Partial), func(i int) bool { return st.Partial[i].Stripe > p.Stripe })
	if i == maxListedShort {
		return
	}
	st.Partial = slices.Insert(st.Partial, i, p)
	if len(st.Partial) > maxListedShort {
		st.Partial = st.Partial[:maxListedShort]
	}
}

func (s *segment) close() {
	for _, f := range []**os.File{&s.spool, &s.spill} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
	for _, st := range s.stripes {
		s.release(st)
	}
	s.alt.close()
}
