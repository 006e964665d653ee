package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// Magic opens every encoded manifest.
const Magic = "LZRM"

// MaxEnvelope is the largest encoded manifest: armored as an HTML comment
// (base64 wrapped at 76 columns) it stays under 16 KiB.
const MaxEnvelope = 12000

const envelopeHeader = 36

// Signed is a parsed manifest with its signer and signature, not yet
// verified: the caller checks Signature over Digest against the owner key.
type Signed struct {
	Manifest  Manifest
	Salt      [16]byte // signer salt (passphrase mode), else zero
	KeyID     [8]byte  // signer key id, zero when unsigned
	Digest    [32]byte // SHA-256 of header and body
	Signature [64]byte // Ed25519 over Digest, context "manifest"
}

// Signer signs digests; *keys.Signer implements it.
type Signer interface {
	KeyID() [8]byte
	Salt() [16]byte
	Sign(context string, msg []byte) []byte
}

// Encode validates m, signs it with s (nil for an unsigned public
// manifest) and returns the envelope: header, JSON body, digest,
// signature. It fails with ErrTooLarge when the result would exceed
// MaxEnvelope; the caller then moves the listing into a segment.
func Encode(m *Manifest, s Signer) ([]byte, error) {
	m.Format = Version
	if err := m.Validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	size := envelopeHeader + len(body) + 32 + 64
	if size > MaxEnvelope {
		return nil, fmt.Errorf("%w: %d bytes exceed %d", ErrTooLarge, size, MaxEnvelope)
	}
	out := make([]byte, envelopeHeader, size)
	copy(out, Magic)
	out[4] = Version
	if s != nil {
		salt, id := s.Salt(), s.KeyID()
		copy(out[8:24], salt[:])
		copy(out[24:32], id[:])
	}
	binary.BigEndian.PutUint32(out[32:36], uint32(len(body)))
	out = append(out, body...)
	digest := sha256.Sum256(out)
	out = append(out, digest[:]...)
	sig := make([]byte, 64)
	if s != nil {
		sig = s.Sign("manifest", digest[:])
	}
	return append(out, sig...), nil
}

// Parse decodes an envelope and validates the manifest. It does not verify
// the signature.
func Parse(buf []byte) (*Signed, error) {
	if len(buf) < 5 || string(buf[:4]) != Magic {
		return nil, ErrNotManifest
	}
	if buf[4] != Version {
		return nil, fmt.Errorf("%w: manifest format version %d is newer than this program understands (%d); upgrade lazarus", ErrUnknownVersion, buf[4], Version)
	}
	if len(buf) < envelopeHeader+96 || len(buf) > MaxEnvelope || !bytes.Equal(buf[5:8], []byte{0, 0, 0}) {
		return nil, fmt.Errorf("%w: bad envelope size or reserved bytes", ErrInvalid)
	}
	n := int(binary.BigEndian.Uint32(buf[32:36]))
	if n != len(buf)-envelopeHeader-96 {
		return nil, fmt.Errorf("%w: body length %d does not match envelope size %d", ErrInvalid, n, len(buf))
	}
	s := &Signed{}
	copy(s.Salt[:], buf[8:24])
	copy(s.KeyID[:], buf[24:32])
	copy(s.Digest[:], buf[envelopeHeader+n:])
	copy(s.Signature[:], buf[envelopeHeader+n+32:])
	if sha256.Sum256(buf[:envelopeHeader+n]) != s.Digest {
		return nil, fmt.Errorf("%w: digest mismatch", ErrInvalid)
	}
	if err := strictJSON(buf[envelopeHeader:envelopeHeader+n], &s.Manifest); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := s.Manifest.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}
