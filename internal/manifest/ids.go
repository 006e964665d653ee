package manifest

import (
	"encoding/hex"
	"fmt"
)

// ID identifies a generation: 16 bytes, written as 32 lower-case hex digits.
type ID [16]byte

// Digest is a SHA-256 digest, written as 64 lower-case hex digits.
type Digest [32]byte

// String returns the hex form.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is all zero (no generation).
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText implements encoding.TextMarshaler.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *ID) UnmarshalText(b []byte) error { return decodeHex(id[:], b, "generation id") }

// ParseID parses the 32-hex-digit form of a generation id.
func ParseID(s string) (ID, error) {
	var id ID
	err := id.UnmarshalText([]byte(s))
	return id, err
}

// String returns the hex form.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// MarshalText implements encoding.TextMarshaler.
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Digest) UnmarshalText(b []byte) error { return decodeHex(d[:], b, "digest") }

func decodeHex(dst, src []byte, what string) error {
	if len(src) != 2*len(dst) {
		return fmt.Errorf("%s must be %d hex digits, got %d characters", what, 2*len(dst), len(src))
	}
	for _, c := range src {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return fmt.Errorf("%s %q: only lower-case hex digits are allowed", what, src)
		}
	}
	_, err := hex.Decode(dst, src)
	return err
}
