package keys

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"

	"filippo.io/age"
	"golang.org/x/crypto/argon2"
)

// Argon2id parameters deriving an Ed25519 signing seed from a passphrase.
// They are part of the archive format: changing them changes every
// passphrase-mode key id.
const (
	Argon2Time    = 3         // passes
	Argon2Memory  = 64 * 1024 // KiB (64 MiB)
	Argon2Threads = 4         // lanes
)

// Scrypt work factors (log2 of N) for passphrase-mode encryption.
const (
	// DefaultWorkFactor is age's default: about one second and 256 MiB.
	DefaultWorkFactor = 18
	// DefaultMaxWorkFactor is the largest work factor accepted when
	// decrypting by default (about 1 GiB), bounding what a forged segment
	// can cost.
	DefaultMaxWorkFactor = 20
	maxWorkFactor        = 30 // age's hard limit
)

var errEmptyPassphrase = errors.New("passphrase is empty")

// PassphraseOptions tunes passphrase mode. The zero value (or a nil
// pointer) selects the defaults.
type PassphraseOptions struct {
	// WorkFactor is the scrypt work factor (log2 N, 1..30) used to encrypt.
	// Defaults to DefaultWorkFactor (18). Tests may lower it.
	WorkFactor int
	// MaxWorkFactor is the largest scrypt work factor accepted when
	// decrypting (1..30). Defaults to DefaultMaxWorkFactor (20).
	MaxWorkFactor int
}

// resolve returns the options with defaults filled in, or an error for an
// out-of-range value.
func (o *PassphraseOptions) resolve() (work, max int, err error) {
	work, max = DefaultWorkFactor, DefaultMaxWorkFactor
	if o != nil && o.WorkFactor != 0 {
		work = o.WorkFactor
	}
	if o != nil && o.MaxWorkFactor != 0 {
		max = o.MaxWorkFactor
	}
	if work < 1 || work > maxWorkFactor {
		return 0, 0, fmt.Errorf("scrypt work factor %d out of range 1..%d", work, maxWorkFactor)
	}
	if max < 1 || max > maxWorkFactor {
		return 0, 0, fmt.Errorf("scrypt max work factor %d out of range 1..%d", max, maxWorkFactor)
	}
	return work, max, nil
}

// NewSalt returns a random passphrase salt. A site chooses its salt once
// and records it in every block header.
func NewSalt() [SaltSize]byte {
	var s [SaltSize]byte
	rand.Read(s[:]) // never fails since Go 1.24
	return s
}

// PassphraseSigner derives a signing key from a passphrase and a site's
// salt: seed = Argon2id(pass, salt, t=3, m=64 MiB, p=4, 32 bytes). This is
// deliberately slow (a few tenths of a second). The salt must not be all
// zero.
func PassphraseSigner(pass []byte, salt [SaltSize]byte) (*Signer, error) {
	if len(pass) == 0 {
		return nil, errEmptyPassphrase
	}
	if salt == ([SaltSize]byte{}) {
		return nil, errors.New("passphrase salt is all zero")
	}
	seed := argon2.IDKey(pass, salt[:], Argon2Time, Argon2Memory, Argon2Threads, SeedSize)
	s, err := NewSigner(seed)
	if err != nil {
		return nil, err
	}
	s.salt = salt
	return s, nil
}

// PassphraseSealer returns a Sealer that encrypts with age's scrypt
// recipient for pass and signs with the key derived from pass and salt.
func PassphraseSealer(pass []byte, salt [SaltSize]byte, opts *PassphraseOptions) (*Sealer, error) {
	work, _, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	signer, err := PassphraseSigner(pass, salt)
	if err != nil {
		return nil, err
	}
	r, err := age.NewScryptRecipient(string(pass))
	if err != nil {
		return nil, fmt.Errorf("scrypt recipient: %w", err)
	}
	r.SetWorkFactor(work)
	return &Sealer{Cipher: CipherScrypt, Recipients: []age.Recipient{r}, Signer: signer}, nil
}

// PassphraseOpener returns an Opener that decrypts scrypt segments with
// pass and verifies signatures by keys derived from pass.
func PassphraseOpener(pass []byte, opts *PassphraseOptions) (*Opener, error) {
	_, max, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	v, err := PassphraseVerifier(pass)
	if err != nil {
		return nil, err
	}
	id, err := age.NewScryptIdentity(string(pass))
	if err != nil {
		return nil, fmt.Errorf("scrypt identity: %w", err)
	}
	id.SetMaxWorkFactor(max)
	return &Opener{Identities: []age.Identity{id}, Verifier: v}, nil
}

// maxPassphraseFile bounds the size of a passphrase file.
const maxPassphraseFile = 64 << 10

// ReadPassphraseFile reads a passphrase from path, removing exactly one
// trailing newline ("\n" or "\r\n") if present; all other bytes, including
// other whitespace, are part of the passphrase. It returns a [Warning] if
// the file is readable by other users.
func ReadPassphraseFile(path string) ([]byte, Warning, error) {
	data, warn, err := readSecretFile(path, maxPassphraseFile)
	if err != nil {
		return nil, "", err
	}
	if p, ok := bytes.CutSuffix(data, []byte("\r\n")); ok {
		data = p
	} else {
		data, _ = bytes.CutSuffix(data, []byte("\n"))
	}
	if len(data) == 0 {
		return nil, "", fmt.Errorf("passphrase file %s: %w", path, errEmptyPassphrase)
	}
	return data, warn, nil
}
