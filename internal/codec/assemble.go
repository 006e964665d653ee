package codec

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// Outcome says what Add did with a block.
type Outcome int

const (
	// Accepted: a good block, stored (or used to rebuild its stripe).
	Accepted Outcome = iota
	// Redundant: a good block not needed: a duplicate, or its stripe is
	// already rebuilt.
	Redundant
	// Rejected: the block failed a check (the error says which) and is
	// treated as an erasure.
	Rejected
)

// ErrTooFewBlocks means a segment has a stripe with fewer good blocks than
// it needs.
var ErrTooFewBlocks = errors.New("too few blocks")

// Options configure an Assembler.
type Options struct {
	// TempDir holds the segments' ciphertext spool files; defaults to
	// os.TempDir().
	TempDir string
	// AllowUnsigned accepts blocks and manifests that carry no signature.
	// Defaults to false: unsigned data is refused, because anyone can
	// encrypt to a public recipient.
	AllowUnsigned bool
}

// Assembler collects blocks from any number of pages, in any order, and
// rebuilds the segments they belong to. It is safe for concurrent use.
type Assembler struct {
	opener *keys.Opener
	opts   Options

	mu   sync.Mutex
	segs map[block.Layout]*segment
}

// NewAssembler returns an Assembler that verifies signatures with
// opener.Verifier and decrypts with opener.Identities.
func NewAssembler(opener *keys.Opener, opts Options) (*Assembler, error) {
	if opener == nil || (opener.Verifier == nil && !opts.AllowUnsigned) {
		return nil, errors.New("assembler: an owner key or passphrase is needed to verify signatures (or allow unsigned data)")
	}
	return &Assembler{opener: opener, opts: opts, segs: map[block.Layout]*segment{}}, nil
}

// Add parses, checks and stores one block payload (as scanned from an HTML
// comment). Damaged, forged or unattributable blocks are Rejected with an
// error saying why; they cost nothing but an erasure.
func (a *Assembler) Add(payload []byte) (Outcome, error) {
	b, err := block.Parse(payload)
	if err != nil {
		return Rejected, err
	}
	if err := a.verify(b.KeyID, b.Salt, "block", b.Digest[:], b.Signature[:]); err != nil {
		return Rejected, fmt.Errorf("block %s/%d/%d of generation %x: %w", b.Name, b.Stripe, b.Shard, b.Generation, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	seg, err := a.segment(b.Layout)
	if err != nil {
		return Rejected, err
	}
	return seg.add(b)
}

func (a *Assembler) verify(id [8]byte, salt [16]byte, ctx string, digest, sig []byte) error {
	if id == ([8]byte{}) && a.opts.AllowUnsigned {
		return nil
	}
	if a.opener.Verifier == nil {
		return fmt.Errorf("%w: no key to verify it with", keys.ErrUnknownSigner)
	}
	err := a.opener.Verifier.Verify(id, salt, ctx, digest, sig)
	if errors.Is(err, keys.ErrUnsigned) {
		return fmt.Errorf("%w (use --allow-unsigned to accept unsigned data)", err)
	}
	return err
}

func (a *Assembler) segment(l block.Layout) (*segment, error) {
	if s, ok := a.segs[l]; ok {
		return s, nil
	}
	p, err := erasure.NewParams(int64(l.Length), int(l.K), int(l.M), int(l.ShardSize))
	if err != nil {
		return nil, err
	}
	coder, err := erasure.NewCoder(p)
	if err != nil {
		return nil, err
	}
	s := &segment{layout: l, params: p, coder: coder, stripes: map[uint32]*stripe{}, done: map[uint32]bool{}, tempDir: a.opts.TempDir}
	a.segs[l] = s
	return s, nil
}

// Close removes every spool file.
func (a *Assembler) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.segs {
		s.close()
	}
	return nil
}

// StripeShort describes an incomplete stripe that has some blocks.
type StripeShort struct {
	Stripe uint32
	Have   int
	Need   int
}

// SegmentStatus is what the Assembler knows about one segment version.
type SegmentStatus struct {
	Layout   block.Layout
	Stripes  uint64        // stripes in the segment
	Complete uint64        // stripes rebuilt
	Partial  []StripeShort // incomplete stripes with at least one block, by stripe
	Blocks   int           // good blocks accepted
}

// Done reports whether every stripe is rebuilt.
func (s SegmentStatus) Done() bool { return s.Complete == s.Stripes }

// Status lists every segment version seen, newest generation first, then
// by name.
func (a *Assembler) Status() []SegmentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]SegmentStatus, 0, len(a.segs))
	for _, s := range a.segs {
		out = append(out, s.status())
	}
	sort.Slice(out, func(i, j int) bool {
		li, lj := out[i].Layout, out[j].Layout
		if li.Time != lj.Time {
			return li.Time > lj.Time
		}
		if li.Name != lj.Name {
			return li.Name < lj.Name
		}
		return string(li.SegmentID[:]) < string(lj.SegmentID[:])
	})
	return out
}

// segment is the reassembly state of one segment version.
type segment struct {
	layout  block.Layout
	params  erasure.Params
	coder   *erasure.Coder
	tempDir string
	spool   *os.File
	stripes map[uint32]*stripe // incomplete stripes
	done    map[uint32]bool
	blocks  int
	checked bool // spool verified against the segment id
}

type stripe struct {
	shards [][]byte
	have   int
}

func (s *segment) add(b *block.Block) (Outcome, error) {
	if s.done[b.Stripe] {
		return Redundant, nil
	}
	st := s.stripes[b.Stripe]
	if st == nil {
		st = &stripe{shards: make([][]byte, s.params.Shards())}
		s.stripes[b.Stripe] = st
	}
	if st.shards[b.Shard] != nil {
		return Redundant, nil
	}
	st.shards[b.Shard] = append([]byte(nil), b.Data...)
	st.have++
	s.blocks++
	if st.have < s.params.K {
		return Accepted, nil
	}
	return Accepted, s.rebuild(b.Stripe, st)
}

// rebuild reconstructs a stripe that has k good shards and writes its data
// into the spool at its offset, then frees the shards.
func (s *segment) rebuild(idx uint32, st *stripe) error {
	if s.spool == nil {
		f, err := os.CreateTemp(s.tempDir, "lazarus-segment-*")
		if err != nil {
			return fmt.Errorf("segment %q: creating spool file: %w", s.layout.Name, err)
		}
		os.Remove(f.Name())
		s.spool = f
	}
	if err := s.coder.WriteStripe(s.spool, int(idx), st.shards); err != nil {
		return fmt.Errorf("segment %q stripe %d: %w", s.layout.Name, idx, err)
	}
	delete(s.stripes, idx)
	s.done[idx] = true
	return nil
}

func (s *segment) status() SegmentStatus {
	st := SegmentStatus{Layout: s.layout, Stripes: s.layout.Stripes(), Complete: uint64(len(s.done)), Blocks: s.blocks}
	for i, p := range s.stripes {
		st.Partial = append(st.Partial, StripeShort{Stripe: i, Have: p.have, Need: s.params.K})
	}
	sort.Slice(st.Partial, func(i, j int) bool { return st.Partial[i].Stripe < st.Partial[j].Stripe })
	return st
}

func (s *segment) close() {
	if s.spool != nil {
		s.spool.Close()
		s.spool = nil
	}
}

// Err explains why a segment cannot be rebuilt yet: which stripes have how
// many of the blocks they need. It wraps ErrTooFewBlocks.
func (st SegmentStatus) Err() error {
	missing := st.Stripes - st.Complete - uint64(len(st.Partial))
	msg := fmt.Sprintf("segment %q of generation %x: %d of %d stripes rebuilt", st.Layout.Name, st.Layout.Generation, st.Complete, st.Stripes)
	for i, p := range st.Partial {
		if i == 3 {
			msg += fmt.Sprintf("; %d more short stripes", len(st.Partial)-3)
			break
		}
		msg += fmt.Sprintf("; stripe %d has %d of the %d blocks needed", p.Stripe, p.Have, p.Need)
	}
	if missing > 0 {
		msg += fmt.Sprintf("; %d stripes have no block at all", missing)
	}
	return fmt.Errorf("%w: %s", ErrTooFewBlocks, msg)
}
