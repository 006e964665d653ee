package block

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Version is the block format version this package writes and reads.
const Version = 1

// Magic opens every block.
const Magic = "LZRB"

// Limits of the v1 format. A reader rejects blocks outside them.
const (
	// MaxShards is the most shards (k+m) a stripe may have.
	MaxShards = 256
	// MaxShardSize is the largest shard a block may carry (16 MiB).
	MaxShardSize = 16 << 20
	// MaxNameLen is the longest segment name.
	MaxNameLen = 64
	// DigestSize is the size of the SHA-256 digest that follows the shard.
	DigestSize = sha256.Size
	// SignatureSize is the size of the Ed25519 signature that ends a block.
	SignatureSize = 64
)

// fixedLen is the length of the header up to and including the name length byte.
const fixedLen = 111

// Kind says what a segment holds.
type Kind uint8

const (
	// KindData is a segment of the site's server files.
	KindData Kind = 1
	// KindListing is the segment that carries a generation's file listing and
	// placement when they do not fit in the manifest comment.
	KindListing Kind = 2
)

// String returns the name used in manifests and reports.
func (k Kind) String() string {
	switch k {
	case KindData:
		return "data"
	case KindListing:
		return "listing"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// CodeRS8 is the only erasure code of format version 1: systematic
// Reed-Solomon over GF(2^8), see docs/FORMAT.md.
const CodeRS8 = 1

// Errors callers branch on. A block that fails any check is an erasure.
var (
	ErrNotBlock       = errors.New("not a lazarus block")
	ErrUnknownVersion = errors.New("unknown block format version")
	ErrBadHeader      = errors.New("invalid block header")
	ErrBadDigest      = errors.New("block digest mismatch")
)

// Layout is everything a block says about the segment it belongs to. Blocks
// are only ever combined with blocks of an identical Layout, so blocks of
// different generations, segments or coding parameters never mix.
type Layout struct {
	Kind       Kind
	Code       uint8
	Cipher     uint8    // encryption mode, see keys.Cipher
	Generation [16]byte // the generation that produced this segment version
	Time       int64    // that generation's time, Unix seconds
	SegmentID  [32]byte // SHA-256 of the segment's exact ciphertext
	Length     uint64   // exact ciphertext length in bytes
	K, M       uint16   // data and parity shards per stripe
	ShardSize  uint32   // bytes per shard
	Salt       [16]byte // signer salt (passphrase mode), else zero
	KeyID      [8]byte  // signer key id, zero when unsigned
	Name       string   // segment name
}

// Block is one shard of one stripe of a segment, with everything needed to
// place it, check it and attribute it.
type Block struct {
	Layout
	Stripe    uint32 // stripe index
	Shard     uint16 // shard index within the stripe, 0..K+M-1
	Data      []byte // the shard, ShardSize bytes
	Digest    [32]byte
	Signature [SignatureSize]byte
}

// Stripes is the number of stripes of the segment: max(1, ⌈Length/(K·ShardSize)⌉).
func (l *Layout) Stripes() uint64 {
	per := uint64(l.K) * uint64(l.ShardSize)
	if per == 0 {
		return 0
	}
	n := (l.Length + per - 1) / per
	if n == 0 {
		n = 1
	}
	return n
}

// Validate checks the layout against the limits of format version 1.
func (l *Layout) Validate() error {
	switch {
	case l.Kind != KindData && l.Kind != KindListing:
		return fmt.Errorf("%w: unknown segment kind %d", ErrBadHeader, l.Kind)
	case l.Code != CodeRS8:
		return fmt.Errorf("%w: unknown erasure code %d", ErrBadHeader, l.Code)
	case l.K < 1 || int(l.K)+int(l.M) > MaxShards:
		return fmt.Errorf("%w: k=%d m=%d (need 1 <= k, k+m <= %d)", ErrBadHeader, l.K, l.M, MaxShards)
	case l.ShardSize < 1 || l.ShardSize > MaxShardSize:
		return fmt.Errorf("%w: shard size %d out of range 1..%d", ErrBadHeader, l.ShardSize, MaxShardSize)
	case l.Stripes() > 1<<32-1:
		return fmt.Errorf("%w: %d stripes exceed the format's limit", ErrBadHeader, l.Stripes())
	}
	return ValidateName(l.Name)
}

// ValidateName checks a segment name: 1 to 64 bytes of A-Z a-z 0-9 . _ -,
// not starting with a dot or dash.
func ValidateName(name string) error {
	if len(name) < 1 || len(name) > MaxNameLen {
		return fmt.Errorf("%w: segment name must be 1 to %d bytes, got %d", ErrBadHeader, MaxNameLen, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			(i > 0 && (c == '.' || c == '-'))
		if !ok {
			return fmt.Errorf("%w: segment name %q: only letters, digits, '_', and (not first) '.' and '-' are allowed", ErrBadHeader, name)
		}
	}
	return nil
}

// Size is the encoded size of a block of this layout.
func (l *Layout) Size() int {
	return fixedLen + len(l.Name) + int(l.ShardSize) + DigestSize + SignatureSize
}

// Sum returns the digest a block of this layout carries for the given
// stripe, shard and data: what Block.Digest holds once the block is
// marshalled or parsed.
func (l *Layout) Sum(stripe uint32, shard uint16, data []byte) [DigestSize]byte {
	b := Block{Layout: *l, Stripe: stripe, Shard: shard}
	h := sha256.New()
	h.Write(b.header())
	h.Write(data)
	var sum [DigestSize]byte
	h.Sum(sum[:0])
	return sum
}

// header encodes the fixed header and the name; with the shard it is what
// the digest covers.
func (b *Block) header() []byte {
	h := make([]byte, fixedLen+len(b.Name))
	copy(h, Magic)
	h[4] = Version
	h[5] = byte(b.Kind)
	h[6] = b.Code
	h[7] = b.Cipher
	copy(h[8:24], b.Generation[:])
	binary.BigEndian.PutUint64(h[24:32], uint64(b.Time))
	copy(h[32:64], b.SegmentID[:])
	binary.BigEndian.PutUint64(h[64:72], b.Length)
	binary.BigEndian.PutUint32(h[72:76], b.Stripe)
	binary.BigEndian.PutUint16(h[76:78], b.K)
	binary.BigEndian.PutUint16(h[78:80], b.M)
	binary.BigEndian.PutUint16(h[80:82], b.Shard)
	binary.BigEndian.PutUint32(h[82:86], b.ShardSize)
	copy(h[86:102], b.Salt[:])
	copy(h[102:110], b.KeyID[:])
	h[110] = byte(len(b.Name))
	copy(h[fixedLen:], b.Name)
	return h
}

// Marshal validates the block, computes its digest over header and shard,
// signs the digest with sign (nil leaves the signature zero: an unsigned
// block) and returns the encoded block: header, shard, digest, signature.
// b.Digest and b.Signature are updated.
func (b *Block) Marshal(sign func(digest []byte) []byte) ([]byte, error) {
	return b.Append(nil, sign)
}

// Append is Marshal appending to dst, so a caller encoding many blocks can
// reuse one buffer.
func (b *Block) Append(dst []byte, sign func(digest []byte) []byte) ([]byte, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	start := len(dst)
	out := slices.Grow(dst, b.Size())
	out = append(out, b.header()...)
	out = append(out, b.Data...)
	b.Digest = sha256.Sum256(out[start:])
	b.Signature = [SignatureSize]byte{}
	if sign != nil {
		copy(b.Signature[:], sign(b.Digest[:]))
	}
	out = append(out, b.Digest[:]...)
	return append(out, b.Signature[:]...), nil
}

func (b *Block) check() error {
	if err := b.Layout.Validate(); err != nil {
		return err
	}
	if uint64(b.Stripe) >= b.Stripes() {
		return fmt.Errorf("%w: stripe %d of %d", ErrBadHeader, b.Stripe, b.Stripes())
	}
	if int(b.Shard) >= int(b.K)+int(b.M) {
		return fmt.Errorf("%w: shard %d of %d", ErrBadHeader, b.Shard, int(b.K)+int(b.M))
	}
	if len(b.Data) != int(b.ShardSize) {
		return fmt.Errorf("%w: shard holds %d bytes, header says %d", ErrBadHeader, len(b.Data), b.ShardSize)
	}
	return nil
}

// Parse decodes and checks one block: magic, version, every header field,
// the exact total length and the digest. It does not check the signature;
// that needs the owner's key (see Block.Digest and Block.Signature).
// The returned block's Data aliases buf.
func Parse(buf []byte) (*Block, error) {
	if len(buf) < 5 || string(buf[:4]) != Magic {
		return nil, ErrNotBlock
	}
	if buf[4] != Version {
		return nil, fmt.Errorf("%w: block format version %d is newer than this program understands (%d); upgrade lazarus", ErrUnknownVersion, buf[4], Version)
	}
	if len(buf) < fixedLen {
		return nil, fmt.Errorf("%w: %d bytes is shorter than a header", ErrBadHeader, len(buf))
	}
	b := parseFixed(buf)
	n := int(buf[110])
	if len(buf) < fixedLen+n {
		return nil, fmt.Errorf("%w: truncated name", ErrBadHeader)
	}
	b.Name = string(buf[fixedLen : fixedLen+n])
	if err := b.Layout.Validate(); err != nil {
		return nil, err
	}
	if len(buf) != b.Size() {
		return nil, fmt.Errorf("%w: block is %d bytes, its header implies %d", ErrBadHeader, len(buf), b.Size())
	}
	body := fixedLen + n
	b.Data = buf[body : body+int(b.ShardSize)]
	if err := b.check(); err != nil {
		return nil, err
	}
	copy(b.Digest[:], buf[body+int(b.ShardSize):])
	copy(b.Signature[:], buf[body+int(b.ShardSize)+DigestSize:])
	if sha256.Sum256(buf[:body+int(b.ShardSize)]) != b.Digest {
		return nil, ErrBadDigest
	}
	return b, nil
}

func parseFixed(buf []byte) *Block {
	b := &Block{}
	b.Kind = Kind(buf[5])
	b.Code = buf[6]
	b.Cipher = buf[7]
	copy(b.Generation[:], buf[8:24])
	b.Time = int64(binary.BigEndian.Uint64(buf[24:32]))
	copy(b.SegmentID[:], buf[32:64])
	b.Length = binary.BigEndian.Uint64(buf[64:72])
	b.Stripe = binary.BigEndian.Uint32(buf[72:76])
	b.K = binary.BigEndian.Uint16(buf[76:78])
	b.M = binary.BigEndian.Uint16(buf[78:80])
	b.Shard = binary.BigEndian.Uint16(buf[80:82])
	b.ShardSize = binary.BigEndian.Uint32(buf[82:86])
	copy(b.Salt[:], buf[86:102])
	copy(b.KeyID[:], buf[102:110])
	return b
}
