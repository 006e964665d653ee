package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/lazarus-preserve/lazarus/internal/block"
)

// MaxListing bounds a decoded listing (256 MiB of JSON), so a hostile one
// cannot exhaust memory.
const MaxListing = 256 << 20

// FileList is the generation's listing: every preserved entry and which
// carrier URLs hold which blocks. It travels encrypted unless the
// generation is public.
type FileList struct {
	Format   int       `json:"format"` // always Version
	Files    []File    `json:"files"`
	Carriers []Carrier `json:"carriers"`
}

// File is one preserved entry.
type File struct {
	Segment string    `json:"segment"`
	Path    string    `json:"path"`
	Type    string    `json:"type"` // "regular", "dir" or "symlink"
	Size    int64     `json:"size,omitempty"`
	Mode    string    `json:"mode"` // octal permission bits, e.g. "0644"
	MTime   time.Time `json:"mtime"`
	SHA256  *Digest   `json:"sha256,omitempty"` // regular files
	Link    string    `json:"link,omitempty"`   // symlink target
}

// Carrier is one page URL and the blocks it carries.
type Carrier struct {
	URL    string     `json:"url"` // absolute, or a path relative to the site URL
	Blocks []BlockRef `json:"blocks"`
}

// BlockRef names one block of the generation: segment, stripe, shard.
// Its text form is "name/stripe/shard".
type BlockRef struct {
	Segment string
	Stripe  uint32
	Shard   uint16
}

// String returns the text form "name/stripe/shard".
func (r BlockRef) String() string {
	return r.Segment + "/" + strconv.FormatUint(uint64(r.Stripe), 10) + "/" + strconv.FormatUint(uint64(r.Shard), 10)
}

// MarshalText implements encoding.TextMarshaler.
func (r BlockRef) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *BlockRef) UnmarshalText(b []byte) error {
	parts := strings.Split(string(b), "/")
	if len(parts) != 3 {
		return fmt.Errorf("block reference %q is not name/stripe/shard", b)
	}
	stripe, err1 := strconv.ParseUint(parts[1], 10, 32)
	shard, err2 := strconv.ParseUint(parts[2], 10, 16)
	if err1 != nil || err2 != nil || shard >= block.MaxShards {
		return fmt.Errorf("block reference %q has a bad stripe or shard number", b)
	}
	if err := block.ValidateName(parts[0]); err != nil {
		return fmt.Errorf("block reference %q: %w", b, err)
	}
	*r = BlockRef{Segment: parts[0], Stripe: uint32(stripe), Shard: uint16(shard)}
	return nil
}

func validateCarriers(cs []Carrier) error {
	for _, c := range cs {
		if c.URL == "" || len(c.URL) > 4096 {
			return fmt.Errorf("%w: carrier URL empty or longer than 4096 bytes", ErrInvalid)
		}
	}
	return nil
}

// EncodeList returns the gzip-compressed JSON of a listing (before
// encryption, which the caller applies).
func EncodeList(l *FileList) ([]byte, error) {
	l.Format = Version
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeList parses an encoded listing (after decryption). It reads at
// most MaxListing bytes of JSON and rejects unknown fields and versions.
func DecodeList(r io.Reader) (*FileList, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: listing: %v", ErrInvalid, err)
	}
	lr := &io.LimitedReader{R: zr, N: MaxListing + 1}
	raw, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("%w: listing: %v", ErrInvalid, err)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%w: listing exceeds %d bytes", ErrInvalid, MaxListing)
	}
	var l FileList
	if err := strictJSON(raw, &l); err != nil {
		return nil, fmt.Errorf("%w: listing: %v", ErrInvalid, err)
	}
	if l.Format != Version {
		return nil, fmt.Errorf("%w: listing format %d is newer than this program understands (%d)", ErrUnknownVersion, l.Format, Version)
	}
	return &l, validateCarriers(l.Carriers)
}

func strictJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after JSON")
	}
	return nil
}
