package manifest

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
)

// Version is the manifest format version this package writes and reads.
const Version = 1

// Errors callers branch on.
var (
	ErrNotManifest    = errors.New("not a lazarus manifest")
	ErrUnknownVersion = errors.New("unknown manifest format version")
	ErrInvalid        = errors.New("invalid manifest")
	ErrTooLarge       = errors.New("manifest too large for one comment")
)

// Manifest describes one generation. Field names are the JSON wire names
// (docs/FORMAT.md §5.2).
type Manifest struct {
	Format     int       `json:"format"`             // always Version
	Generation ID        `json:"generation"`         // this generation
	Time       time.Time `json:"time"`               // when it was made, UTC
	Site       string    `json:"site"`               // the public site URL
	Previous   *ID       `json:"previous,omitempty"` // the generation it replaces
	Cipher     string    `json:"cipher"`             // encryption mode of segments and listing
	Segments   []Segment `json:"segments"`           // data segments, then the listing segment if any
	Listing    Listing   `json:"listing"`            // where the listing is
}

// Segment names one segment version and every parameter needed to rebuild it.
type Segment struct {
	Name       string    `json:"name"`
	Kind       string    `json:"kind"`       // "data" or "listing"
	ID         Digest    `json:"id"`         // SHA-256 of the exact ciphertext
	Generation ID        `json:"generation"` // the generation that produced this version
	Time       time.Time `json:"time"`       // that generation's time
	Length     int64     `json:"length"`     // exact ciphertext length
	Code       string    `json:"code"`       // "rs8"
	K          int       `json:"k"`
	M          int       `json:"m"`
	ShardSize  int       `json:"shard_size"`
	Stripes    int       `json:"stripes"`
	TarSize    int64     `json:"tar_size"` // uncompressed tar size; extraction stops beyond it
	Files      int       `json:"files"`    // entries in the segment
}

// Listing says where the generation's listing travels: inline (encrypted
// unless the cipher is public) or, when too large, as a segment of kind
// "listing" whose blocks' carriers are named here.
type Listing struct {
	Inline   []byte    `json:"inline,omitempty"`   // encoded listing (base64 in JSON)
	Segment  string    `json:"segment,omitempty"`  // name of the listing segment
	Carriers []Carrier `json:"carriers,omitempty"` // carriers of the listing segment's blocks
}

// Validate checks everything a reader relies on.
func (m *Manifest) Validate() error {
	if m.Format != Version {
		return fmt.Errorf("%w: manifest format %d is not %d", ErrUnknownVersion, m.Format, Version)
	}
	if m.Generation.IsZero() {
		return fmt.Errorf("%w: zero generation id", ErrInvalid)
	}
	if u, err := url.Parse(m.Site); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: site %q is not an absolute http(s) URL", ErrInvalid, m.Site)
	}
	names := map[string]bool{}
	for i := range m.Segments {
		s := &m.Segments[i]
		if names[s.Name] {
			return fmt.Errorf("%w: segment %q listed twice", ErrInvalid, s.Name)
		}
		names[s.Name] = true
		if err := s.Validate(); err != nil {
			return err
		}
	}
	return m.validateListing(names)
}

func (m *Manifest) validateListing(names map[string]bool) error {
	l := m.Listing
	switch {
	case len(l.Inline) > 0 && l.Segment != "":
		return fmt.Errorf("%w: listing is both inline and a segment", ErrInvalid)
	case len(l.Inline) == 0 && l.Segment == "":
		return fmt.Errorf("%w: no listing", ErrInvalid)
	case l.Segment != "" && !names[l.Segment]:
		return fmt.Errorf("%w: listing segment %q is not among the segments", ErrInvalid, l.Segment)
	}
	return validateCarriers(l.Carriers)
}

// Layout returns the block layout every block of this segment carries,
// less the signer fields, which come from the manifest's own signer.
func (s *Segment) Layout(cipher uint8) block.Layout {
	kind := block.KindData
	if s.Kind == "listing" {
		kind = block.KindListing
	}
	return block.Layout{
		Kind: kind, Code: block.CodeRS8, Cipher: cipher,
		Generation: s.Generation, Time: s.Time.Unix(), SegmentID: s.ID,
		Length: uint64(s.Length), K: uint16(s.K), M: uint16(s.M), ShardSize: uint32(s.ShardSize),
		Name: s.Name,
	}
}

// Validate checks a segment's parameters against the block format's limits.
func (s *Segment) Validate() error {
	if s.Kind != "data" && s.Kind != "listing" {
		return fmt.Errorf("%w: segment %q has unknown kind %q", ErrInvalid, s.Name, s.Kind)
	}
	if s.Code != "rs8" {
		return fmt.Errorf("%w: segment %q has unknown code %q", ErrInvalid, s.Name, s.Code)
	}
	if s.Length < 0 || s.TarSize < 0 || s.Files < 0 || s.K < 0 || s.M < 0 || s.K > block.MaxShards || s.M > block.MaxShards || s.ShardSize < 0 || s.ShardSize > block.MaxShardSize {
		return fmt.Errorf("%w: segment %q has out-of-range parameters", ErrInvalid, s.Name)
	}
	l := s.Layout(0)
	if err := l.Validate(); err != nil {
		return fmt.Errorf("%w: segment %q: %v", ErrInvalid, s.Name, err)
	}
	if uint64(s.Stripes) != l.Stripes() {
		return fmt.Errorf("%w: segment %q says %d stripes, its parameters imply %d", ErrInvalid, s.Name, s.Stripes, l.Stripes())
	}
	return nil
}
