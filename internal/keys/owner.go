package keys

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"filippo.io/age"
)

// Owner is the owner's key, kept offline: the age identity that decrypts
// segments and the Ed25519 seed that signs them (so a rebuilt server can
// keep signing as the same owner).
type Owner struct {
	identity  age.Identity // *age.HybridIdentity or *age.X25519Identity
	recipient age.Recipient
	cipher    Cipher
	signer    *Signer
	created   time.Time
}

// Generate returns a new owner key and the matching server key. The age
// identity is post-quantum hybrid, or classic X25519 if classic is true.
func Generate(classic bool) (*Owner, *Server, error) {
	var (
		id  age.Identity
		err error
	)
	if classic {
		id, err = age.GenerateX25519Identity()
	} else {
		id, err = age.GenerateHybridIdentity()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("generating age identity: %w", err)
	}
	seed := make([]byte, SeedSize)
	rand.Read(seed) // never fails since Go 1.24
	o, err := newOwner(id, seed, time.Time{})
	if err != nil {
		return nil, nil, err
	}
	return o, o.Server(), nil
}

func newOwner(id age.Identity, seed []byte, created time.Time) (*Owner, error) {
	signer, err := NewSigner(seed)
	if err != nil {
		return nil, err
	}
	o := &Owner{identity: id, signer: signer, created: created}
	switch id := id.(type) {
	case *age.HybridIdentity:
		o.cipher, o.recipient = CipherHybrid, id.Recipient()
	case *age.X25519Identity:
		o.cipher, o.recipient = CipherX25519, id.Recipient()
	default:
		return nil, fmt.Errorf("unsupported age identity type %T", id)
	}
	return o, nil
}

// ParseOwner parses the text of an owner key file (see [Owner.Marshal]).
// The recipient and verify key are derived from the secrets, never read
// from the file.
func ParseOwner(data []byte) (*Owner, error) {
	fields, err := parseKeyFile(data, ownerKind)
	if err != nil {
		return nil, err
	}
	created, err := parseCreated(ownerKind, fields)
	if err != nil {
		return nil, err
	}
	id, err := parseIdentity(fields[fieldIdentity])
	if err != nil {
		return nil, fmt.Errorf("%s: field %q: %w", ownerKind.name, fieldIdentity, err)
	}
	seed, err := parseSeed(ownerKind, fields[fieldSeed])
	if err != nil {
		return nil, err
	}
	return newOwner(id, seed, created)
}

// parseIdentity parses a hybrid (AGE-SECRET-KEY-PQ-1…) or X25519
// (AGE-SECRET-KEY-1…) age identity, in either letter case.
func parseIdentity(s string) (age.Identity, error) {
	s = strings.ToUpper(s)
	switch {
	case strings.HasPrefix(s, "AGE-SECRET-KEY-PQ-1"):
		return age.ParseHybridIdentity(s)
	case strings.HasPrefix(s, "AGE-SECRET-KEY-1"):
		return age.ParseX25519Identity(s)
	}
	return nil, fmt.Errorf("not an age secret key (want AGE-SECRET-KEY-PQ-1… or AGE-SECRET-KEY-1…)")
}

// Marshal returns the owner key file text. Comment lines are informational;
// the fields are, in order: lazarus-owner-key, created (if set),
// age-identity, signing-seed.
func (o *Owner) Marshal() []byte {
	var w keyFileWriter
	w.comment(
		"Lazarus owner key. Keep it offline (and on paper): it decrypts and verifies your backups.",
		"Anyone holding it can read every backup and sign new generations as you.",
		"To recover from paper, retype the lines that do not start with \"#\".",
		"Cipher:     "+o.cipher.String(),
		"Key id:     "+FormatKeyID(o.signer.KeyID()),
		"Verify key: "+base64.StdEncoding.EncodeToString(o.signer.Public()),
		"The public recipient is in "+ServerFileName+" and is derived from this file.",
	)
	w.header(ownerKind, o.created)
	w.field(fieldIdentity, fmt.Sprint(o.identity))
	w.field(fieldSeed, base64.StdEncoding.EncodeToString(o.signer.Seed()))
	return []byte(w.String())
}

// Server returns the server key matching o: same recipient, same signing
// key.
func (o *Owner) Server() *Server {
	return &Server{recipient: o.recipient, cipher: o.cipher, signer: o.signer, created: o.created}
}

// Opener returns an Opener that decrypts with the owner's identity and
// trusts only the owner's signing key.
func (o *Owner) Opener() *Opener {
	return &Opener{Identities: []age.Identity{o.identity}, Verifier: o.signer.Verifier()}
}

// Verifier returns a Verifier that trusts only the owner's signing key.
func (o *Owner) Verifier() *Verifier { return o.signer.Verifier() }

// Identity returns the age identity (*age.HybridIdentity or
// *age.X25519Identity).
func (o *Owner) Identity() age.Identity { return o.identity }

// Recipient returns the age recipient derived from the identity.
func (o *Owner) Recipient() age.Recipient { return o.recipient }

// Cipher returns CipherHybrid or CipherX25519.
func (o *Owner) Cipher() Cipher { return o.cipher }

// Signer returns the owner's signing key.
func (o *Owner) Signer() *Signer { return o.signer }

// KeyID returns the key id of the owner's signing key.
func (o *Owner) KeyID() [KeyIDSize]byte { return o.signer.KeyID() }

// Created returns the creation time recorded in the key file, or the zero
// time if none was.
func (o *Owner) Created() time.Time { return o.created }

// ErrNoOwnerKey means an opener was asked for with neither the owner key
// nor a passphrase, and unsigned data was not allowed.
var ErrNoOwnerKey = errors.New("the owner key or the passphrase is needed (or unsigned data allowed)")

// OpenerFor is the opener of whichever is given: the owner key file's
// contents (owner), a passphrase, or, with neither, an opener that only
// takes unsigned data when allowUnsigned (else ErrNoOwnerKey). Giving
// both is an error.
func OpenerFor(owner, passphrase []byte, allowUnsigned bool) (*Opener, error) {
	switch {
	case len(owner) > 0 && len(passphrase) > 0:
		return nil, errors.New("give an owner key or a passphrase, not both")
	case len(owner) > 0:
		o, err := ParseOwner(owner)
		if err != nil {
			return nil, err
		}
		return o.Opener(), nil
	case len(passphrase) > 0:
		return PassphraseOpener(passphrase, nil)
	case allowUnsigned:
		return &Opener{}, nil
	}
	return nil, ErrNoOwnerKey
}
