package keys

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"strings"
)

const (
	// SeedSize is the size of an Ed25519 signing seed.
	SeedSize = ed25519.SeedSize
	// KeyIDSize is the size of a key id.
	KeyIDSize = 8
	// SaltSize is the size of a passphrase salt.
	SaltSize = 16
	// SignatureSize is the size of a signature returned by [Signer.Sign].
	SignatureSize = ed25519.SignatureSize
)

// keyIDPrefix domain-separates key ids from other SHA-256 uses.
const keyIDPrefix = "lazarus key id v1\x00"

// signPrefix starts every signed message: "lazarus v1 " ‖ context ‖ 0x00 ‖ msg.
const signPrefix = "lazarus v1 "

// KeyID returns the key id of an Ed25519 public key: the first 8 bytes of
// SHA-256("lazarus key id v1\x00" ‖ pub). The all-zero key id is reserved to
// mean "unsigned".
func KeyID(pub ed25519.PublicKey) [KeyIDSize]byte {
	h := sha256.New()
	h.Write([]byte(keyIDPrefix))
	h.Write(pub)
	var id [KeyIDSize]byte
	copy(id[:], h.Sum(nil))
	return id
}

// FormatKeyID returns id as 16 lowercase hex digits.
func FormatKeyID(id [KeyIDSize]byte) string {
	return fmt.Sprintf("%x", id[:])
}

// Signer holds a private Ed25519 signing key. It signs blocks and manifests
// so that a recovering owner can tell genuine generations from forged ones.
// A Signer is safe for concurrent use.
type Signer struct {
	priv ed25519.PrivateKey
	id   [KeyIDSize]byte
	salt [SaltSize]byte
}

// NewSigner returns a Signer for a 32-byte Ed25519 seed.
func NewSigner(seed []byte) (*Signer, error) {
	if len(seed) != SeedSize {
		return nil, fmt.Errorf("signing seed is %d bytes, want %d", len(seed), SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	return &Signer{priv: priv, id: KeyID(priv.Public().(ed25519.PublicKey))}, nil
}

// KeyID returns the key id of the signer's public key.
func (s *Signer) KeyID() [KeyIDSize]byte { return s.id }

// Salt returns the passphrase salt the key was derived with; it is all zero
// unless the Signer came from [PassphraseSigner].
func (s *Signer) Salt() [SaltSize]byte { return s.salt }

// Public returns the Ed25519 public (verify) key.
func (s *Signer) Public() ed25519.PublicKey {
	return s.priv.Public().(ed25519.PublicKey)
}

// Seed returns a copy of the 32-byte Ed25519 seed.
func (s *Signer) Seed() []byte { return s.priv.Seed() }

// Verifier returns a Verifier that trusts exactly this signer's public key.
func (s *Signer) Verifier() *Verifier {
	v, _ := NewVerifier(s.Public()) // cannot fail: the key has the right size
	return v
}

// Sign returns the Ed25519 signature of "lazarus v1 " ‖ context ‖ 0x00 ‖ msg.
// Callers use the contexts "block" and "manifest". Sign panics if context
// contains a NUL byte, which would break domain separation.
func (s *Signer) Sign(context string, msg []byte) []byte {
	m, err := signedMessage(context, msg)
	if err != nil {
		panic("keys: " + err.Error())
	}
	return ed25519.Sign(s.priv, m)
}

// signedMessage returns the exact bytes that are signed for msg in context.
func signedMessage(context string, msg []byte) ([]byte, error) {
	if strings.IndexByte(context, 0) >= 0 {
		return nil, fmt.Errorf("signing context %q contains a NUL byte", context)
	}
	m := make([]byte, 0, len(signPrefix)+len(context)+1+len(msg))
	m = append(m, signPrefix...)
	m = append(m, context...)
	m = append(m, 0)
	return append(m, msg...), nil
}
