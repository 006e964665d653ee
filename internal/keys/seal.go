package keys

import (
	"errors"
	"fmt"
	"io"

	"filippo.io/age"
)

// ErrWrongKey means a segment cannot be decrypted with the given key or
// passphrase.
var ErrWrongKey = errors.New("wrong key")

// Sealer encrypts segments and holds the key that signs them.
type Sealer struct {
	// Cipher is recorded in block headers and must match Recipients.
	Cipher Cipher
	// Recipients are the age recipients segments are encrypted to: none for
	// CipherNone, *age.X25519Recipient for CipherX25519,
	// *age.HybridRecipient for CipherHybrid and exactly one
	// *age.ScryptRecipient for CipherScrypt.
	Recipients []age.Recipient
	// Signer signs blocks and manifests. It may be nil only with
	// CipherNone (unsigned public mode).
	Signer *Signer
}

// PublicSealer returns a Sealer that stores segments unencrypted, signed by
// signer, or unsigned if signer is nil.
func PublicSealer(signer *Signer) *Sealer {
	return &Sealer{Cipher: CipherNone, Signer: signer}
}

// Check reports whether the Sealer's fields are consistent.
func (s *Sealer) Check() error {
	if !s.Cipher.Known() {
		return fmt.Errorf("sealer: %w %d", ErrUnknownCipher, uint8(s.Cipher))
	}
	if s.Cipher == CipherNone {
		if len(s.Recipients) != 0 {
			return errors.New("sealer: public mode takes no recipients")
		}
		return nil
	}
	if s.Signer == nil {
		return fmt.Errorf("sealer: %s mode needs a signing key", s.Cipher)
	}
	if len(s.Recipients) == 0 {
		return fmt.Errorf("sealer: %s mode needs a recipient", s.Cipher)
	}
	if s.Cipher == CipherScrypt && len(s.Recipients) != 1 {
		return errors.New("sealer: age-scrypt mode takes exactly one recipient")
	}
	for _, r := range s.Recipients {
		if c, ok := recipientCipher(r); !ok || c != s.Cipher {
			return fmt.Errorf("sealer: recipient of type %T does not match cipher %s", r, s.Cipher)
		}
	}
	return nil
}

// Encrypt returns a WriteCloser that encrypts what is written to it into w;
// Close must be called to flush the last chunk and does not close w. For
// CipherNone it writes through unchanged.
func (s *Sealer) Encrypt(w io.Writer) (io.WriteCloser, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if s.Cipher == CipherNone {
		return nopCloser{w}, nil
	}
	wc, err := age.Encrypt(w, s.Recipients...)
	if err != nil {
		return nil, fmt.Errorf("%s encryption: %w", s.Cipher, err)
	}
	return wc, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Opener decrypts segments and verifies their signatures.
type Opener struct {
	// Identities decrypt segments: the owner's *age.HybridIdentity or
	// *age.X25519Identity, or an *age.ScryptIdentity.
	Identities []age.Identity
	// Verifier checks block and manifest signatures.
	Verifier *Verifier
}

// Decrypt returns a reader of the plaintext of the segment r encrypted with
// cipher c. Only identities matching c are tried, so a header's cipher
// cannot disagree with how the segment was actually encrypted. Errors wrap
// [ErrWrongKey] if the key or passphrase does not fit and
// [ErrUnknownCipher] for an unknown c. Damage to the payload is reported
// by the returned reader.
func (o *Opener) Decrypt(c Cipher, r io.Reader) (io.Reader, error) {
	if !c.Known() {
		return nil, fmt.Errorf("%w %d", ErrUnknownCipher, uint8(c))
	}
	if c == CipherNone {
		return r, nil
	}
	ids := o.identitiesFor(c)
	if len(ids) == 0 {
		return nil, o.wrongKey(c)
	}
	pr, err := age.Decrypt(r, ids...)
	var noMatch *age.NoIdentityMatchError
	if errors.As(err, &noMatch) {
		return nil, o.wrongKey(c)
	}
	if err != nil {
		return nil, fmt.Errorf("decrypting %s segment: %w", c, err)
	}
	return pr, nil
}

// identitiesFor returns the identities that can decrypt cipher c; identity
// types this package does not know are always tried.
func (o *Opener) identitiesFor(c Cipher) []age.Identity {
	var ids []age.Identity
	for _, id := range o.Identities {
		if ic, ok := identityCipher(id); !ok || ic == c {
			ids = append(ids, id)
		}
	}
	return ids
}

// wrongKey explains why none of o's identities fits a segment of cipher c.
func (o *Opener) wrongKey(c Cipher) error {
	have := make(map[Cipher]bool)
	for _, id := range o.Identities {
		if ic, ok := identityCipher(id); ok {
			have[ic] = true
		}
	}
	switch {
	case have[c] && c == CipherScrypt:
		return fmt.Errorf("%w: wrong passphrase", ErrWrongKey)
	case have[c]:
		return fmt.Errorf("%w: this segment is not encrypted to your owner key", ErrWrongKey)
	case c == CipherScrypt:
		return fmt.Errorf("%w: this segment is passphrase-encrypted; give the passphrase, not an owner key", ErrWrongKey)
	case have[CipherScrypt]:
		return fmt.Errorf("%w: this segment is encrypted to an owner key (%s), not to a passphrase", ErrWrongKey, c)
	case len(have) > 0:
		return fmt.Errorf("%w: this segment is encrypted with %s but your owner key is for %s", ErrWrongKey, c, otherCipher(have))
	}
	return fmt.Errorf("%w: no key given for %s segment", ErrWrongKey, c)
}

func otherCipher(have map[Cipher]bool) Cipher {
	for _, c := range []Cipher{CipherHybrid, CipherX25519} {
		if have[c] {
			return c
		}
	}
	return CipherNone
}

// identityCipher returns the cipher an age identity decrypts.
func identityCipher(id age.Identity) (Cipher, bool) {
	switch id.(type) {
	case *age.HybridIdentity:
		return CipherHybrid, true
	case *age.X25519Identity:
		return CipherX25519, true
	case *age.ScryptIdentity:
		return CipherScrypt, true
	}
	return 0, false
}

// recipientCipher returns the cipher an age recipient encrypts with.
func recipientCipher(r age.Recipient) (Cipher, bool) {
	switch r.(type) {
	case *age.HybridRecipient:
		return CipherHybrid, true
	case *age.X25519Recipient:
		return CipherX25519, true
	case *age.ScryptRecipient:
		return CipherScrypt, true
	}
	return 0, false
}
