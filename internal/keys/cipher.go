package keys

import (
	"errors"
	"fmt"
)

// Cipher identifies how a segment is encrypted. Its numeric value is
// recorded in every block header, so the values below are part of the
// archive format and must never change.
type Cipher uint8

const (
	// CipherNone ("public") stores segments unencrypted. It must be asked
	// for by name; it is never a default.
	CipherNone Cipher = 0
	// CipherX25519 ("age-x25519") encrypts to a classic age X25519
	// recipient (age1…).
	CipherX25519 Cipher = 1
	// CipherHybrid ("age-pq-hybrid") encrypts to an age post-quantum hybrid
	// recipient (age1pq1…, ML-KEM-768 + X25519). It is the default.
	CipherHybrid Cipher = 2
	// CipherScrypt ("age-scrypt") encrypts to an age scrypt passphrase
	// recipient.
	CipherScrypt Cipher = 3
)

// DefaultCipher is the cipher used when none is requested.
const DefaultCipher = CipherHybrid

// ErrUnknownCipher is returned for a cipher value or name this program does
// not know.
var ErrUnknownCipher = errors.New("unknown cipher")

var cipherNames = [...]string{
	CipherNone:   "public",
	CipherX25519: "age-x25519",
	CipherHybrid: "age-pq-hybrid",
	CipherScrypt: "age-scrypt",
}

// String returns the cipher's name, or "cipher(N)" for an unknown value.
func (c Cipher) String() string {
	if c.Known() {
		return cipherNames[c]
	}
	return fmt.Sprintf("cipher(%d)", uint8(c))
}

// Known reports whether c is one of the ciphers defined above.
func (c Cipher) Known() bool {
	return int(c) < len(cipherNames)
}

// Encrypted reports whether c is a known cipher that encrypts.
func (c Cipher) Encrypted() bool {
	return c.Known() && c != CipherNone
}

// ParseCipher returns the cipher named name ("public", "age-x25519",
// "age-pq-hybrid" or "age-scrypt").
func ParseCipher(name string) (Cipher, error) {
	for c, n := range cipherNames {
		if n == name {
			return Cipher(c), nil
		}
	}
	return 0, fmt.Errorf("%w %q: want one of public, age-x25519, age-pq-hybrid, age-scrypt", ErrUnknownCipher, name)
}
