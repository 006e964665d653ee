package codec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// ListingSegment is the name of the segment that carries a listing too
// large for the manifest comment. Names starting with "_" are reserved.
const ListingSegment = "_listing"

// PlaceFunc erasure-codes a sealed segment (choosing its parameters),
// places its blocks on carrier pages and returns the parameters and the
// carriers. BuildManifest calls it for the listing segment.
type PlaceFunc func(s *Sealed) (erasure.Params, []manifest.Carrier, error)

// CheckSegmentName rejects names that are invalid or reserved.
func CheckSegmentName(name string) error {
	if strings.HasPrefix(name, "_") {
		return fmt.Errorf("segment name %q: names starting with '_' are reserved", name)
	}
	return block.ValidateName(name)
}

// BuildManifest completes m (whose generation, time, site, previous
// generation and data segments the caller has filled) with the listing,
// signs it and returns the encoded manifest. The listing is encrypted (in
// public mode: only compressed) and travels inside the manifest when the
// manifest comment stays within its 16 KiB bound; otherwise it is sealed
// as the segment "_listing", which place codes and places, and the manifest
// names that segment and its carriers instead.
func BuildManifest(m *manifest.Manifest, list *manifest.FileList, s *keys.Sealer, opts SealOptions, place PlaceFunc) ([]byte, error) {
	plain, err := manifest.EncodeList(list)
	if err != nil {
		return nil, err
	}
	var signer manifest.Signer
	if s.Signer != nil {
		signer = s.Signer
	}
	m.Cipher = s.Cipher.String()
	inline, err := encryptBytes(s, plain)
	if err != nil {
		return nil, err
	}
	m.Listing = manifest.Listing{Inline: inline}
	env, err := manifest.Encode(m, signer)
	if !errors.Is(err, manifest.ErrTooLarge) {
		return env, err
	}
	sealed, err := sealBytes(ListingSegment, block.KindListing, plain, s, opts)
	if err != nil {
		return nil, err
	}
	defer sealed.Close()
	p, carriers, err := place(sealed)
	if err != nil {
		return nil, fmt.Errorf("placing the listing segment: %w", err)
	}
	m.Segments = append(m.Segments, sealed.Segment(Generation{ID: m.Generation, Time: m.Time}, p))
	m.Listing = manifest.Listing{Segment: ListingSegment, Carriers: carriers}
	env, err = manifest.Encode(m, signer)
	if errors.Is(err, manifest.ErrTooLarge) {
		return nil, fmt.Errorf("%w: even without its listing (%d segments); use fewer segments", err, len(m.Segments))
	}
	return env, err
}

func encryptBytes(s *keys.Sealer, plain []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := s.Encrypt(&buf)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(plain); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
