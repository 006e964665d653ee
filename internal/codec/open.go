package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// ErrDigestMismatch means a fully rebuilt segment does not hash to its id:
// its blocks were signed but inconsistent. Nothing of it is extracted.
// (Segments are checked as soon as their last stripe is rebuilt.)
var ErrDigestMismatch = errors.New("rebuilt segment does not match its id")

// Open returns the decrypted payload of a complete segment version. The
// ciphertext is checked against the segment id before decryption.
func (a *Assembler) Open(l block.Layout) (io.Reader, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.segs[l]
	if !ok {
		return nil, fmt.Errorf("%w: segment %q of generation %x: no block found", ErrTooFewBlocks, l.Name, l.Generation)
	}
	if s.alt != nil && s.alt.added > 0 { // candidates came since the last attempt
		err := s.maybeResolve(true)
		a.signalLocked()
		if err != nil {
			return nil, err
		}
	}
	if st := s.status(); !st.Done() {
		return nil, st.Err()
	}
	r := io.NewSectionReader(s.spool, 0, int64(l.Length))
	return a.opener.Decrypt(keys.Cipher(l.Cipher), r)
}

// Extract decrypts a complete data segment and extracts it safely into dir
// (see bundle.Extract for the rules). opts.MaxTarSize should be the size
// the manifest declares, when the manifest is known.
func (a *Assembler) Extract(l block.Layout, dir string, opts bundle.ExtractOptions) (bundle.Report, error) {
	if l.Kind != block.KindData {
		return bundle.Report{}, fmt.Errorf("segment %q is a %s segment, not data", l.Name, l.Kind)
	}
	r, err := a.Open(l)
	if err != nil {
		return bundle.Report{}, err
	}
	rep, err := bundle.Extract(r, dir, opts)
	if err != nil {
		return rep, fmt.Errorf("segment %q of generation %x: %w", l.Name, l.Generation, err)
	}
	return rep, nil
}

// AddManifest parses a manifest payload and verifies its signature against
// the owner's key. A forged, damaged or (unless allowed) unsigned manifest
// is refused with an error saying so.
func (a *Assembler) AddManifest(payload []byte) (*manifest.Signed, error) {
	s, err := manifest.Parse(payload)
	if err != nil {
		return nil, err
	}
	if err := a.verifyManifest(s); err != nil {
		return nil, err
	}
	return s, nil
}

// verifyManifest checks a parsed manifest's signature.
func (a *Assembler) verifyManifest(s *manifest.Signed) error {
	if err := a.verify(s.KeyID, s.Salt, "manifest", s.Digest[:], s.Signature[:]); err != nil {
		return fmt.Errorf("manifest of generation %s: %w", s.Manifest.Generation, err)
	}
	return nil
}

// SegmentLayout returns the layout the blocks of manifest segment seg carry.
func SegmentLayout(m *manifest.Signed, seg *manifest.Segment) (block.Layout, error) {
	c, err := keys.ParseCipher(m.Manifest.Cipher)
	if err != nil {
		return block.Layout{}, err
	}
	l := seg.Layout(uint8(c))
	l.Salt, l.KeyID = m.Salt, m.KeyID
	return l, nil
}

// Listing returns a verified manifest's listing: decrypted from the
// manifest itself, or from its listing segment once that is complete.
func (a *Assembler) Listing(m *manifest.Signed) (*manifest.FileList, error) {
	c, err := keys.ParseCipher(m.Manifest.Cipher)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	if inline := m.Manifest.Listing.Inline; len(inline) > 0 {
		r, err = a.opener.Decrypt(c, bytes.NewReader(inline))
	} else {
		r, err = a.listingSegment(m)
	}
	if err != nil {
		return nil, fmt.Errorf("listing of generation %s: %w", m.Manifest.Generation, err)
	}
	return manifest.DecodeList(r)
}

func (a *Assembler) listingSegment(m *manifest.Signed) (io.Reader, error) {
	for i := range m.Manifest.Segments {
		seg := &m.Manifest.Segments[i]
		if seg.Name == m.Manifest.Listing.Segment {
			l, err := SegmentLayout(m, seg)
			if err != nil {
				return nil, err
			}
			return a.Open(l)
		}
	}
	return nil, fmt.Errorf("listing segment %q not in manifest", m.Manifest.Listing.Segment)
}
