package codec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// ErrNotFollowed means a segment read by StageEarly could not be followed
// to its end: one of its stripes was contested (its bytes in the spool may
// have changed after they were read), or the assembler was closed.
var ErrNotFollowed = errors.New("segment not followed to its end")

// StageEarly extracts data segment version l into a staging directory
// inside dir (bundle.Stage, every check of Extract) while its blocks are
// still being added: it reads the ciphertext as the stripes are rebuilt,
// each stripe's bytes as rebuilt, waiting for the next one. It returns
// once the payload is staged, every byte of the ciphertext was read, no
// stripe of the segment was ever contested (so none was written twice)
// and the segment matched its id: the bytes decrypted are then exactly
// those Extract would have decrypted, and Commit does what Extract would
// have done. Otherwise it removes what it staged and fails: with
// ErrDigestMismatch if the segment does not match its id, ErrNotFollowed
// after a contest or once the assembler is closed, ctx's error, or the
// extraction's own.
func (a *Assembler) StageEarly(ctx context.Context, l block.Layout, dir string, opts bundle.ExtractOptions) (*Staged, error) {
	if l.Kind != block.KindData {
		return nil, fmt.Errorf("segment %q is a %s segment, not data", l.Name, l.Kind)
	}
	f := &follower{a: a, ctx: ctx, l: l}
	r, err := a.opener.Decrypt(keys.Cipher(l.Cipher), f)
	if err != nil {
		return nil, err
	}
	bs, err := bundle.Stage(r, dir, opts)
	if err != nil {
		return nil, fmt.Errorf("segment %q of generation %x: %w", l.Name, l.Generation, err)
	}
	// What decrypting did not need of the ciphertext must arrive too, and
	// the segment match its id (the follower's io.EOF says so).
	if _, err := io.Copy(io.Discard, f); err != nil {
		bs.Remove()
		return nil, err
	}
	return &Staged{l: l, s: bs}, nil
}

// Staged is a data segment extracted early and not yet moved into place
// (see StageEarly).
type Staged struct {
	l block.Layout
	s *bundle.Staged
}

// Commit moves the staged segment into place as Extract would have
// (bundle.Staged.Commit), with Extract's errors.
func (s *Staged) Commit() (bundle.Report, error) {
	rep, err := s.s.Commit()
	if err != nil {
		return rep, fmt.Errorf("segment %q of generation %x: %w", s.l.Name, s.l.Generation, err)
	}
	return rep, nil
}

// Remove deletes what was staged; after Commit it does nothing.
func (s *Staged) Remove() { s.s.Remove() }

// follower reads a segment's ciphertext as its stripes are rebuilt.
type follower struct {
	a   *Assembler
	ctx context.Context
	l   block.Layout
	off int64
}

func (f *follower) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		spool, n, wait, err := f.a.ready(f.l, f.off)
		if err != nil {
			return 0, err
		}
		if n > 0 {
			m, err := spool.ReadAt(p[:min(int64(len(p)), n)], f.off)
			f.off += int64(m)
			if m == 0 {
				return 0, fmt.Errorf("segment %q: reading spool: %w", f.l.Name, err)
			}
			return m, nil
		}
		select {
		case <-wait:
		case <-f.ctx.Done():
			return 0, f.ctx.Err()
		}
	}
}

// ready says how many bytes of segment version l from off are in
// rebuilt stripes of its spool, or gives a channel closed at the next
// change if none are yet; at the end of the segment, io.EOF once it
// matched its id.
func (a *Assembler) ready(l block.Layout, off int64) (spool *os.File, n int64, wait <-chan struct{}, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, 0, nil, fmt.Errorf("%w: assembler closed", ErrNotFollowed)
	}
	s := a.segs[l]
	switch {
	case s == nil:
		return nil, 0, a.changedLocked(), nil
	case s.rewritten:
		return nil, 0, nil, fmt.Errorf("%w: segment %q of generation %x has contested stripes", ErrNotFollowed, l.Name, l.Generation)
	case s.bad:
		return nil, 0, nil, fmt.Errorf("segment %q of generation %x: %w", l.Name, l.Generation, ErrDigestMismatch)
	case off >= int64(l.Length) && s.checked:
		return nil, 0, nil, io.EOF
	case off >= int64(l.Length):
		return nil, 0, a.changedLocked(), nil
	}
	size := s.params.StripeSize()
	idx := uint32(off / size)
	if s.done[idx] == nil {
		return nil, 0, a.changedLocked(), nil
	}
	return s.spool, min((int64(idx)+1)*size, int64(l.Length)) - off, nil, nil
}

// changedLocked returns a channel closed at the assembler's next change;
// a.mu is held.
func (a *Assembler) changedLocked() <-chan struct{} {
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return a.changed
}

// signalLocked wakes the readers waiting for a change; a.mu is held.
func (a *Assembler) signalLocked() {
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}
