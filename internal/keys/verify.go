package keys

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync"
)

var (
	// ErrBadSignature means the signer is the expected one but the signature
	// does not verify: the data was forged or corrupted.
	ErrBadSignature = errors.New("bad signature")
	// ErrUnknownSigner means the data was signed by a key other than the
	// owner's (or, in passphrase mode, not by a key derived from the given
	// passphrase), for example a forged generation encrypted to the owner's
	// public recipient but signed by someone else.
	ErrUnknownSigner = errors.New("unknown signer")
	// ErrUnsigned means the data carries no signature (all-zero key id).
	ErrUnsigned = errors.New("not signed")
	// ErrTooManySalts is returned by a passphrase Verifier asked to derive
	// keys for more than MaxSalts distinct salts.
	ErrTooManySalts = errors.New("too many distinct passphrase salts")
)

// MaxSalts bounds how many distinct salts that verified nothing a
// passphrase [Verifier] derives keys for (each derivation costs one
// Argon2id run), so forged blocks with random salts cannot make
// verification arbitrarily slow. Salts that verified a signature never
// count: junk salts cannot use up the room of the genuine one.
const MaxSalts = 64

// Verifier checks signatures made by a [Signer]. It trusts either exactly
// one Ed25519 public key (the owner's) or every key derived from one
// passphrase. A Verifier is safe for concurrent use.
type Verifier struct {
	pub ed25519.PublicKey // key mode
	id  [KeyIDSize]byte   // key mode

	pass     []byte     // passphrase mode
	maxSalts int        // passphrase mode: MaxSalts, lowered by tests
	deriveMu sync.Mutex // serializes derivations, bounding memory to one Argon2id run
	mu       sync.Mutex // guards derived and trusted
	derived  map[[SaltSize]byte]ed25519.PublicKey
	trusted  map[[SaltSize]byte]bool // salts that verified a signature
}

// NewVerifier returns a Verifier that trusts exactly the public key pub.
func NewVerifier(pub ed25519.PublicKey) (*Verifier, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("verify key is %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	pub = append(ed25519.PublicKey(nil), pub...)
	return &Verifier{pub: pub, id: KeyID(pub)}, nil
}

// PassphraseVerifier returns a Verifier that trusts the signing keys derived
// from pass (see [PassphraseSigner]) for whatever salt a block records. It
// derives and caches one key per distinct salt, at most [MaxSalts].
func PassphraseVerifier(pass []byte) (*Verifier, error) {
	if len(pass) == 0 {
		return nil, errEmptyPassphrase
	}
	return &Verifier{
		pass:     append([]byte(nil), pass...),
		maxSalts: MaxSalts,
		derived:  make(map[[SaltSize]byte]ed25519.PublicKey),
		trusted:  make(map[[SaltSize]byte]bool),
	}, nil
}

// PassphraseMode reports whether v trusts keys derived from a passphrase.
func (v *Verifier) PassphraseMode() bool { return v.pass != nil }

// Derived reports whether v has already derived the key for salt, so that
// verifying with it costs no Argon2id run.
func (v *Verifier) Derived(salt [SaltSize]byte) bool {
	_, ok := v.cached(salt)
	return ok
}

// Trusted reports how many salts have verified a signature so far.
func (v *Verifier) Trusted() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.trusted)
}

// Verify checks that sig is the signature of msg in context made by the key
// with id keyID. salt is the passphrase salt recorded next to the signature;
// it selects the derived key in passphrase mode and is ignored otherwise.
//
// It returns nil, or an error wrapping [ErrUnsigned], [ErrUnknownSigner],
// [ErrBadSignature] or, in passphrase mode, [ErrTooManySalts].
func (v *Verifier) Verify(keyID [KeyIDSize]byte, salt [SaltSize]byte, context string, msg, sig []byte) error {
	if keyID == ([KeyIDSize]byte{}) {
		return fmt.Errorf("%w: key id is zero", ErrUnsigned)
	}
	pub, err := v.keyFor(keyID, salt)
	if err != nil {
		return err
	}
	m, err := signedMessage(context, msg)
	if err != nil {
		return err
	}
	if len(sig) != SignatureSize || !ed25519.Verify(pub, m, sig) {
		return fmt.Errorf("%w: %s signature by key id %s does not verify (forged or corrupted)",
			ErrBadSignature, context, FormatKeyID(keyID))
	}
	if v.pass != nil {
		v.mu.Lock()
		v.trusted[salt] = true
		v.mu.Unlock()
	}
	return nil
}

// keyFor returns the trusted public key for keyID and salt, or an error
// wrapping ErrUnknownSigner if keyID is not that key's id.
func (v *Verifier) keyFor(keyID [KeyIDSize]byte, salt [SaltSize]byte) (ed25519.PublicKey, error) {
	if v.pass == nil {
		if keyID != v.id {
			return nil, fmt.Errorf("%w: signed by key id %s, expected %s (the owner key)",
				ErrUnknownSigner, FormatKeyID(keyID), FormatKeyID(v.id))
		}
		return v.pub, nil
	}
	if salt == ([SaltSize]byte{}) {
		return nil, fmt.Errorf("%w: signed by key id %s with no passphrase salt (an owner key made it, not a passphrase)",
			ErrUnknownSigner, FormatKeyID(keyID))
	}
	pub, err := v.derive(salt)
	if err != nil {
		return nil, err
	}
	if id := KeyID(pub); keyID != id {
		return nil, fmt.Errorf("%w: signed by key id %s, expected %s (wrong passphrase, or signed by someone else)",
			ErrUnknownSigner, FormatKeyID(keyID), FormatKeyID(id))
	}
	return pub, nil
}

// derive returns the public key derived from the passphrase and salt,
// computing it at most once per salt.
func (v *Verifier) derive(salt [SaltSize]byte) (ed25519.PublicKey, error) {
	if pub, ok := v.cached(salt); ok {
		return pub, nil
	}
	v.deriveMu.Lock()
	defer v.deriveMu.Unlock()
	if pub, ok := v.cached(salt); ok {
		return pub, nil // another goroutine derived it while we waited
	}
	v.mu.Lock()
	failed := len(v.derived) - len(v.trusted)
	v.mu.Unlock()
	if failed >= v.maxSalts {
		return nil, fmt.Errorf("%w: %d salts verified nothing; refusing to derive keys for more", ErrTooManySalts, failed)
	}
	s, err := PassphraseSigner(v.pass, salt)
	if err != nil {
		return nil, err
	}
	pub := s.Public()
	v.mu.Lock()
	v.derived[salt] = pub
	v.mu.Unlock()
	return pub, nil
}

func (v *Verifier) cached(salt [SaltSize]byte) (ed25519.PublicKey, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	pub, ok := v.derived[salt]
	return pub, ok
}
