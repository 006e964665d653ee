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

// ReportName is the file recover writes its report to at the top of the
// output directory, where every segment is restored under its name: no
// segment may take it (recovery would refuse the segment).
const ReportName = "recovery.json"

// CheckSegmentName rejects names that are invalid or reserved.
func CheckSegmentName(name string) error {
	switch {
	case strings.HasPrefix(name, "_"):
		return fmt.Errorf("segment name %q: names starting with '_' are reserved", name)
	case name == ReportName:
		return fmt.Errorf("segment name %q: reserved for recover's report in the directory it restores into", name)
	}
	return block.ValidateName(name)
}

// BuildManifest completes m (whose generation, time, site, previous
// generation and data segments the caller has filled) with the listing,
// signs it and returns the encoded manifest. The listing is encrypted (in
// public mode: only compressed) and travels inside the manifest when the
// manifest comment stays within its 16 KiB bound; otherwise BuildManifest
// returns no envelope but the listing sealed as the segment "_listing",
// which the caller codes and places, then signs the manifest with
// SignWithListing (and closes the segment).
func BuildManifest(m *manifest.Manifest, list *manifest.FileList, s *keys.Sealer, opts SealOptions) (env []byte, listing *Sealed, err error) {
	plain, err := manifest.EncodeList(list)
	if err != nil {
		return nil, nil, err
	}
	m.Cipher = s.Cipher.String()
	inline, err := encryptBytes(s, plain)
	if err != nil {
		return nil, nil, err
	}
	m.Listing = manifest.Listing{Inline: inline}
	env, err = manifest.Encode(m, signerOf(s))
	if !errors.Is(err, manifest.ErrTooLarge) {
		return env, nil, err
	}
	listing, err = sealBytes(ListingSegment, block.KindListing, plain, s, opts)
	return nil, listing, err
}

// SignWithListing completes m with its listing segment, coded with p and
// named on carriers, and signs it: BuildManifest's second step for a
// listing too large to travel inline.
func SignWithListing(m *manifest.Manifest, listing *Sealed, p erasure.Params, carriers []manifest.Carrier, s *keys.Sealer) ([]byte, error) {
	m.Segments = append(m.Segments, listing.Segment(Generation{ID: m.Generation, Time: m.Time}, p))
	m.Listing = manifest.Listing{Segment: ListingSegment, Carriers: carriers}
	env, err := manifest.Encode(m, signerOf(s))
	if errors.Is(err, manifest.ErrTooLarge) {
		return nil, fmt.Errorf("%w: even without its listing (%d segments); use fewer segments", err, len(m.Segments))
	}
	return env, err
}

// signerOf is the sealer's signer, nil (no signature) in public mode.
func signerOf(s *keys.Sealer) manifest.Signer {
	if s.Signer == nil {
		return nil
	}
	return s.Signer
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
