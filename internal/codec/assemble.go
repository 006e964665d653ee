package codec

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
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
	// Parked: a passphrase-mode block whose salt has not been tried yet;
	// it waits until its salt is worth a key derivation (see Settle).
	Parked
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

// Origin says where a page (and so each block on it) was found: the
// source, the capture's URL and its time. The time ranks conflicting
// versions of a block (older captures first); the URL counts how widely a
// passphrase salt is seen; the source is only carried along for reports.
// Any may be zero: unknown.
type Origin struct {
	Source string
	URL    string
	Time   time.Time
}

// stamp is the capture time used to rank blocks: Unix seconds, or
// unknownTime (ranked newest) when not known.
func (o Origin) stamp() int64 {
	if o.Time.IsZero() {
		return unknownTime
	}
	return max(1, o.Time.Unix())
}

// Assembler collects blocks from any number of pages, in any order, and
// rebuilds the segments they belong to. It is safe for concurrent use.
type Assembler struct {
	opener *keys.Opener
	opts   Options
	salts  *saltTriage // passphrase mode only

	mu      sync.Mutex
	segs    map[block.Layout]*segment
	held    held
	changed chan struct{} // closed at the next change, for Follow; nil if nobody waits
	closed  bool
}

// NewAssembler returns an Assembler that verifies signatures with
// opener.Verifier and decrypts with opener.Identities.
func NewAssembler(opener *keys.Opener, opts Options) (*Assembler, error) {
	if opener == nil || (opener.Verifier == nil && !opts.AllowUnsigned) {
		return nil, errors.New("assembler: an owner key or passphrase is needed to verify signatures (or allow unsigned data)")
	}
	a := &Assembler{opener: opener, opts: opts, segs: map[block.Layout]*segment{}}
	if opener.Verifier != nil && opener.Verifier.PassphraseMode() {
		a.salts = newSaltTriage(opener.Verifier)
	}
	return a, nil
}

// Add parses, checks and stores one block payload (as scanned from an HTML
// comment) found at from. Damaged, forged or unattributable blocks are
// Rejected with an error saying why; they cost nothing but an erasure.
func (a *Assembler) Add(payload []byte, from Origin) (Outcome, error) {
	b, err := block.Parse(payload)
	if err != nil {
		return Rejected, err
	}
	if a.salts.park(b.KeyID, b.Salt, itemBlock, payload, from) {
		return Parked, nil
	}
	return a.addParsed(b, from)
}

func (a *Assembler) addParsed(b *block.Block, from Origin) (Outcome, error) {
	if err := a.verifyBlock(b); err != nil {
		return Rejected, err
	}
	return a.store(b, from, false)
}

// verifyBlock checks a parsed block's signature.
func (a *Assembler) verifyBlock(b *block.Block) error {
	if err := a.verify(b.KeyID, b.Salt, "block", b.Digest[:], b.Signature[:]); err != nil {
		return fmt.Errorf("block %s/%d/%d of generation %x: %w", b.Name, b.Stripe, b.Shard, b.Generation, err)
	}
	return nil
}

// store adds a verified block to its segment; owned says nothing else
// refers to b.Data, which is then kept without a copy.
func (a *Assembler) store(b *block.Block, from Origin, owned bool) (Outcome, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	seg, err := a.segment(b.Layout)
	if err != nil {
		return Rejected, err
	}
	wasContested := seg.alt.has(b.Stripe)
	o, err := seg.add(b, from.stamp(), owned)
	a.signalLocked()
	if err == nil && !wasContested && seg.alt.has(b.Stripe) {
		err = fmt.Errorf("%w: block %s/%d/%d of generation %x", ErrConflict, b.Name, b.Stripe, b.Shard, b.Generation)
	}
	return o, err
}

// ErrConflict is reported (beside an Accepted outcome) for a block that
// differs from another block of the same shard while both carry a good
// signature: the signing key made both, so it may have been stolen. Every
// version is kept and the segment id decides between them.
var ErrConflict = errors.New("two different blocks for one shard, both signed by the owner's key (was server.key stolen?); keeping both, the segment id will decide")

func (a *Assembler) verify(id [8]byte, salt [16]byte, ctx string, digest, sig []byte) error {
	if id == ([8]byte{}) && a.opts.AllowUnsigned {
		return nil
	}
	if a.opener.Verifier == nil {
		return fmt.Errorf("%w: no key to verify it with", keys.ErrUnknownSigner)
	}
	err := a.opener.Verifier.Verify(id, salt, ctx, digest, sig)
	if errors.Is(err, keys.ErrUnsigned) {
		return fmt.Errorf("%w (unsigned data is refused unless allowed)", err)
	}
	return err
}

func (a *Assembler) segment(l block.Layout) (*segment, error) {
	if s, ok := a.segs[l]; ok {
		return s, nil
	}
	if len(a.segs) >= MaxSegments {
		return nil, fmt.Errorf("%w (%d segment versions)", ErrTooMuch, MaxSegments)
	}
	s, err := newSegment(l, a.opts.TempDir, &a.held)
	if err != nil {
		return nil, err
	}
	a.segs[l] = s
	return s, nil
}

// Settle finishes what waits for more evidence, once no more pages will
// come: it tries the passphrase salts still parked (most widely seen
// first, within the verifier's budget) and makes a last attempt at every
// contested segment. Its report credits what it added.
func (a *Assembler) Settle() PageReport {
	rep := a.salts.settle(a)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.segs {
		if err := s.maybeResolve(true); err != nil {
			rep.problem(err)
		}
	}
	a.signalLocked()
	return rep
}

// Close removes every spool file.
func (a *Assembler) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.segs {
		s.close()
	}
	a.closed = true
	a.signalLocked()
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
	Layout    block.Layout
	Stripes   uint64        // stripes in the segment
	Complete  uint64        // stripes rebuilt, or with k shards when contested
	Partial   []StripeShort // the first incomplete stripes with at least one block, by stripe (at most 8)
	Short     int           // incomplete stripes with at least one block
	Blocks    int           // good blocks accepted
	Contested int           // stripes with two versions of some block, both signed
	Verified  bool          // rebuilt and matching the segment id: ready to open
	Mismatch  bool          // every stripe rebuilt, but not matching the segment id
}

// Done reports whether the segment is rebuilt and matches its id.
func (s SegmentStatus) Done() bool { return s.Verified }

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

// Err explains why a segment cannot be opened yet: which stripes have how
// many of the blocks they need (wrapping ErrTooFewBlocks), or that the
// rebuilt segment does not match its id (wrapping ErrDigestMismatch).
func (st SegmentStatus) Err() error {
	name := fmt.Sprintf("segment %q of generation %x", st.Layout.Name, st.Layout.Generation)
	if st.Complete == st.Stripes && !st.Verified {
		msg := "every stripe rebuilt"
		if st.Contested > 0 {
			msg = fmt.Sprintf("%d stripes hold two versions of a block, both signed by the owner's key, and no choice among them", st.Contested)
		}
		return fmt.Errorf("%s: %w (%s)", name, ErrDigestMismatch, msg)
	}
	missing := st.Stripes - st.Complete - uint64(st.Short)
	msg := fmt.Sprintf("%s: %d of %d stripes rebuilt", name, st.Complete, st.Stripes)
	for i, p := range st.Partial {
		if i == 3 {
			msg += fmt.Sprintf("; %d more short stripes", st.Short-3)
			break
		}
		msg += fmt.Sprintf("; stripe %d has %d of the %d blocks needed", p.Stripe, p.Have, p.Need)
	}
	if missing > 0 {
		msg += fmt.Sprintf("; %d stripes have no block at all", missing)
	}
	return fmt.Errorf("%w: %s", ErrTooFewBlocks, msg)
}

// ByLayout indexes segment statuses by their layout.
func ByLayout(status []SegmentStatus) map[block.Layout]SegmentStatus {
	done := map[block.Layout]SegmentStatus{}
	for _, st := range status {
		done[st.Layout] = st
	}
	return done
}
