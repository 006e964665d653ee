package codec

import (
	"bytes"
	"crypto/sha256"
	"fmt"
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
	layout  block.Layout
	params  erasure.Params
	coder   *erasure.Coder
	tempDir string
	spool   *os.File
	stripes map[uint32]*stripe     // incomplete stripes
	done    map[uint32]*doneStripe // rebuilt, uncontested stripes
	alt     *altStore              // contested stripes; nil until a conflict
	blocks  int
	checked bool // the spool matches the segment id: final
	bad     bool // every stripe rebuilt, but the spool does not match the id
}

// stripe holds the blocks of an incomplete stripe, one version per shard:
// the one from the oldest capture seen.
type stripe struct {
	shards [][]byte
	sums   []sum   // digests of the blocks held
	times  []int64 // their capture times (Unix ns)
	have   int
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

func newSegment(l block.Layout, tempDir string) (*segment, error) {
	p, err := erasure.NewParams(int64(l.Length), int(l.K), int(l.M), int(l.ShardSize))
	if err != nil {
		return nil, err
	}
	coder, err := erasure.NewCoder(p)
	if err != nil {
		return nil, err
	}
	return &segment{layout: l, params: p, coder: coder, tempDir: tempDir,
		stripes: map[uint32]*stripe{}, done: map[uint32]*doneStripe{}}, nil
}

// add stores one verified block captured at time at (Unix ns).
func (s *segment) add(b *block.Block, at int64) (Outcome, error) {
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
		n := s.params.Shards()
		st = &stripe{shards: make([][]byte, n), sums: make([]sum, n), times: make([]int64, n)}
		s.stripes[b.Stripe] = st
	}
	if old := st.shards[b.Shard]; old != nil {
		if bytes.Equal(old, b.Data) {
			st.times[b.Shard] = min(st.times[b.Shard], at)
			return Redundant, nil
		}
		if err := s.contest(b.Stripe, s.fromStripe(st)); err != nil {
			return Rejected, err
		}
		return s.addCandidate(b, at)
	}
	st.shards[b.Shard] = append([]byte(nil), b.Data...)
	st.sums[b.Shard], st.times[b.Shard] = sumOf(b.Digest), at
	st.have++
	s.blocks++
	if st.have < s.params.K {
		return Accepted, nil
	}
	return Accepted, s.rebuild(b.Stripe, st)
}

// addLate handles a block of a stripe already rebuilt: the same block
// again is redundant; a different version contests the stripe.
func (s *segment) addLate(b *block.Block, at int64) (Outcome, error) {
	d := s.done[b.Stripe]
	if d.sums[b.Shard] == (sum{}) && !d.full {
		if err := s.fillSums(b.Stripe, d); err != nil {
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
	// WriteStripe fills in missing data shards: give it its own slice, so
	// st.shards keeps only what was received.
	if err := s.coder.WriteStripe(s.spool, int(idx), slices.Clone(st.shards)); err != nil {
		return s.contest(idx, s.fromStripe(st))
	}
	delete(s.stripes, idx)
	s.done[idx] = &doneStripe{sums: st.sums, times: st.times}
	if s.alt != nil {
		return s.maybeResolve(true)
	}
	return s.verifyIfComplete()
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
	ok, err := s.matchesID()
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
// parity: every shard of the stripe.
func (s *segment) codeword(idx uint32) ([][]byte, error) {
	n, z := s.params.Shards(), s.params.ShardSize
	shards := make([][]byte, n)
	buf := make([]byte, n*z)
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
	shards, err := s.codeword(idx)
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

func (s *segment) status() SegmentStatus {
	st := SegmentStatus{Layout: s.layout, Stripes: s.layout.Stripes(), Complete: uint64(len(s.done)), Blocks: s.blocks,
		Verified: s.checked, Mismatch: s.bad}
	for i, p := range s.stripes {
		st.Partial = append(st.Partial, StripeShort{Stripe: i, Have: p.have, Need: s.params.K})
	}
	for i, cands := range s.alt.byStripe() {
		st.Contested++
		if have := distinctShards(cands); have >= s.params.K {
			st.Complete++
		} else {
			st.Partial = append(st.Partial, StripeShort{Stripe: i, Have: have, Need: s.params.K})
		}
	}
	if s.checked {
		st.Complete = st.Stripes
	}
	sort.Slice(st.Partial, func(i, j int) bool { return st.Partial[i].Stripe < st.Partial[j].Stripe })
	return st
}

func (s *segment) close() {
	if s.spool != nil {
		s.spool.Close()
		s.spool = nil
	}
	s.alt.close()
}
