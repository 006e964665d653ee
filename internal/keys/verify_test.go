package keys

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"sync"
	"testing"
)

var zeroSalt [SaltSize]byte

func TestVerifyKeyMode(t *testing.T) {
	owner := mustSigner(t, testSeed())
	other := mustSigner(t, make([]byte, SeedSize))
	msg := []byte("block header and payload")
	sig := owner.Sign("block", msg)
	flipped := append([]byte(nil), sig...)
	flipped[10] ^= 1
	otherSig := other.Sign("block", msg)

	tests := []struct {
		name  string
		keyID [KeyIDSize]byte
		msg   []byte
		sig   []byte
		want  error // nil means success
	}{
		// Genuine signature by the owner: accepted.
		{"genuine", owner.KeyID(), msg, sig, nil},
		// One bit of the signature flipped: forged or corrupted.
		{"forged signature", owner.KeyID(), msg, flipped, ErrBadSignature},
		// Message changed after signing: bad signature.
		{"altered message", owner.KeyID(), []byte("block header and paylaod"), sig, ErrBadSignature},
		// Truncated signature: bad signature, no panic.
		{"short signature", owner.KeyID(), msg, sig[:63], ErrBadSignature},
		// Missing signature bytes: bad signature.
		{"empty signature", owner.KeyID(), msg, nil, ErrBadSignature},
		// A valid signature by another key: unknown signer.
		{"other key", other.KeyID(), msg, otherSig, ErrUnknownSigner},
		// Another key's signature claiming the owner's key id: bad signature.
		{"other key claiming owner id", owner.KeyID(), msg, otherSig, ErrBadSignature},
		// All-zero key id: unsigned.
		{"unsigned", [KeyIDSize]byte{}, msg, nil, ErrUnsigned},
	}
	v := owner.Verifier()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Verify(tt.keyID, zeroSalt, "block", tt.msg, tt.sig)
			if !errors.Is(err, tt.want) { // errors.Is(err, nil) means err == nil
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyUnknownSignerMessage(t *testing.T) {
	owner := mustSigner(t, testSeed())
	other := mustSigner(t, make([]byte, SeedSize))
	err := owner.Verifier().Verify(other.KeyID(), zeroSalt, "manifest", nil, other.Sign("manifest", nil))
	want := "signed by key id " + FormatKeyID(other.KeyID()) + ", expected " + FormatKeyID(owner.KeyID())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want it to contain %q", err, want)
	}
}

func TestNewVerifierKeyLength(t *testing.T) {
	if _, err := NewVerifier(make(ed25519.PublicKey, 31)); err == nil {
		t.Errorf("NewVerifier accepted a 31-byte key")
	}
	pub := mustSigner(t, testSeed()).Public()
	v, err := NewVerifier(pub)
	if err != nil {
		t.Fatal(err)
	}
	pub[0] ^= 1 // the Verifier must have copied the key
	s := mustSigner(t, testSeed())
	if err := v.Verify(s.KeyID(), zeroSalt, "block", nil, s.Sign("block", nil)); err != nil {
		t.Errorf("Verify after caller mutated its key: %v", err)
	}
}

func TestPassphraseVerifierTwoSalts(t *testing.T) {
	pass := []byte("correct horse battery staple")
	saltA, saltB := NewSalt(), NewSalt()
	sA, err := PassphraseSigner(pass, saltA)
	if err != nil {
		t.Fatal(err)
	}
	sB, err := PassphraseSigner(pass, saltB)
	if err != nil {
		t.Fatal(err)
	}
	if sA.KeyID() == sB.KeyID() {
		t.Fatalf("two salts gave the same key id")
	}
	v, err := PassphraseVerifier(pass)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("manifest bytes")
	sigA, sigB := sA.Sign("manifest", msg), sB.Sign("manifest", msg)
	tests := []struct {
		name  string
		keyID [KeyIDSize]byte
		salt  [SaltSize]byte
		sig   []byte
		want  error
	}{
		// Each salt derives its own key: both genuine signatures verify.
		{"salt A", sA.KeyID(), saltA, sigA, nil},
		{"salt B", sB.KeyID(), saltB, sigB, nil},
		// Key id of A recorded with salt B: not the key salt B derives.
		{"swapped salt", sA.KeyID(), saltB, sigA, ErrUnknownSigner},
		// Right key id, damaged signature: bad signature.
		{"damaged", sB.KeyID(), saltB, sigA, ErrBadSignature},
		// No salt: made by an owner key, not a passphrase.
		{"zero salt", sA.KeyID(), zeroSalt, sigA, ErrUnknownSigner},
		// No key id: unsigned.
		{"unsigned", [KeyIDSize]byte{}, saltA, nil, ErrUnsigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Verify(tt.keyID, tt.salt, "manifest", msg, tt.sig)
			if !errors.Is(err, tt.want) { // errors.Is(err, nil) means err == nil
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
	if n := len(v.derived); n != 2 {
		t.Errorf("derived %d keys, want 2 (one per salt, cached)", n)
	}
}

func TestPassphraseVerifierWrongPassphrase(t *testing.T) {
	salt := NewSalt()
	s, err := PassphraseSigner([]byte("right"), salt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := PassphraseVerifier([]byte("wrong"))
	if err != nil {
		t.Fatal(err)
	}
	err = v.Verify(s.KeyID(), salt, "block", nil, s.Sign("block", nil))
	if !errors.Is(err, ErrUnknownSigner) || !strings.Contains(err.Error(), "wrong passphrase") {
		t.Errorf("Verify = %v, want ErrUnknownSigner mentioning a wrong passphrase", err)
	}
}

func TestPassphraseVerifierTooManySalts(t *testing.T) {
	v, err := PassphraseVerifier([]byte("pass"))
	if err != nil {
		t.Fatal(err)
	}
	v.maxSalts = 1
	id := [KeyIDSize]byte{1}
	v.Verify(id, NewSalt(), "block", nil, nil) // derives one key, fails as unknown signer
	if err := v.Verify(id, NewSalt(), "block", nil, nil); !errors.Is(err, ErrTooManySalts) {
		t.Errorf("Verify with a second salt = %v, want ErrTooManySalts", err)
	}
}

// TestPassphraseVerifierGenuineSaltsDoNotCount: salts that verified a
// signature do not use up the budget of salts that verified nothing.
func TestPassphraseVerifierGenuineSaltsDoNotCount(t *testing.T) {
	pass := []byte("pass")
	v, err := PassphraseVerifier(pass)
	if err != nil {
		t.Fatal(err)
	}
	v.maxSalts = 1
	for i := 0; i < 3; i++ {
		salt := NewSalt()
		s, _ := PassphraseSigner(pass, salt)
		if err := v.Verify(s.KeyID(), salt, "block", nil, s.Sign("block", nil)); err != nil {
			t.Fatalf("genuine salt %d: %v", i, err)
		}
	}
	v.Verify([KeyIDSize]byte{1}, NewSalt(), "block", nil, nil) // one junk salt: the budget
	if err := v.Verify([KeyIDSize]byte{1}, NewSalt(), "block", nil, nil); !errors.Is(err, ErrTooManySalts) {
		t.Errorf("second junk salt = %v, want ErrTooManySalts", err)
	}
	if v.Trusted() != 3 {
		t.Errorf("trusted %d salts, want 3", v.Trusted())
	}
}

// TestPassphraseVerifierConcurrent checks that concurrent verifications of
// one salt derive the key once and agree (run with -race).
func TestPassphraseVerifierConcurrent(t *testing.T) {
	pass, salt := []byte("pass"), NewSalt()
	s, err := PassphraseSigner(pass, salt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := PassphraseVerifier(pass)
	if err != nil {
		t.Fatal(err)
	}
	sig := s.Sign("block", []byte("x"))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = v.Verify(s.KeyID(), salt, "block", []byte("x"), sig) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	if n := len(v.derived); n != 1 {
		t.Errorf("derived %d keys, want 1", n)
	}
}

func TestPassphraseVerifierEmpty(t *testing.T) {
	if _, err := PassphraseVerifier(nil); err == nil {
		t.Errorf("PassphraseVerifier accepted an empty passphrase")
	}
}
