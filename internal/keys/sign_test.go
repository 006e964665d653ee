package keys

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"testing"
)

// testSeed returns the fixed seed 00 01 02 … 1f.
func testSeed() []byte {
	seed := make([]byte, SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return seed
}

func mustSigner(t testing.TB, seed []byte) *Signer {
	t.Helper()
	s, err := NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKeyIDVector pins the key id derivation: changing it would orphan
// every archived block.
func TestKeyIDVector(t *testing.T) {
	s := mustSigner(t, testSeed())
	const (
		wantPub = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
		wantID  = "6c063e839c191317"
	)
	if got := hex.EncodeToString(s.Public()); got != wantPub {
		t.Errorf("public key = %s, want %s", got, wantPub)
	}
	if got := FormatKeyID(s.KeyID()); got != wantID {
		t.Errorf("key id = %s, want %s", got, wantID)
	}
	if s.KeyID() != KeyID(s.Public()) {
		t.Errorf("Signer.KeyID disagrees with KeyID")
	}
	if s.Salt() != ([SaltSize]byte{}) {
		t.Errorf("key-file signer has a non-zero salt")
	}
}

// TestSignVector pins the signed message layout "lazarus v1 " ‖ context ‖
// 0x00 ‖ msg (Ed25519 is deterministic).
func TestSignVector(t *testing.T) {
	s := mustSigner(t, testSeed())
	const want = "e115b904c434a02e002a0ea86d07ddfa8441b733dba6bdca9f91e1fa9bf062ea2b29dad0a6040a60fd6e3ddcec50c9266f04b5ef5c2ea1f76907cd7acafd0708"
	sig := s.Sign("block", []byte("hello"))
	if got := hex.EncodeToString(sig); got != want {
		t.Errorf("signature = %s, want %s", got, want)
	}
	m := []byte("lazarus v1 block\x00hello")
	if !ed25519.Verify(s.Public(), m, sig) {
		t.Errorf("signature does not verify over the documented layout")
	}
}

func TestSignedMessageLayout(t *testing.T) {
	tests := []struct {
		context string
		msg     string
		want    string
	}{
		{"block", "", "lazarus v1 block\x00"},
		{"manifest", "abc", "lazarus v1 manifest\x00abc"},
		{"", "\x00", "lazarus v1 \x00\x00"},
	}
	for _, tt := range tests {
		got, err := signedMessage(tt.context, []byte(tt.msg))
		if err != nil || string(got) != tt.want {
			t.Errorf("signedMessage(%q, %q) = %q, %v; want %q", tt.context, tt.msg, got, err, tt.want)
		}
	}
	// A NUL in the context would let "a\x00b" + "c" collide with "a" + "b\x00c".
	if _, err := signedMessage("a\x00b", nil); err == nil {
		t.Errorf("signedMessage accepted a context with NUL")
	}
}

func TestSignPanicsOnNULContext(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Sign did not panic on a NUL in the context")
		}
	}()
	mustSigner(t, testSeed()).Sign("bl\x00ock", nil)
}

func TestNewSignerSeedLength(t *testing.T) {
	for _, n := range []int{0, 31, 33, 64} {
		if _, err := NewSigner(make([]byte, n)); err == nil {
			t.Errorf("NewSigner accepted a %d-byte seed", n)
		}
	}
	s := mustSigner(t, testSeed())
	if !bytes.Equal(s.Seed(), testSeed()) {
		t.Errorf("Seed() does not return the seed")
	}
}

func TestSignDomainSeparation(t *testing.T) {
	s := mustSigner(t, testSeed())
	v := s.Verifier()
	msg := []byte("same bytes")
	sig := s.Sign("block", msg)
	if err := v.Verify(s.KeyID(), [SaltSize]byte{}, "manifest", msg, sig); err == nil {
		t.Errorf("a block signature verified as a manifest signature")
	}
}

func BenchmarkSign_48K(b *testing.B) {
	s := mustSigner(b, testSeed())
	msg := make([]byte, 48<<10)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s.Sign("block", msg)
	}
}

func BenchmarkVerify_48K(b *testing.B) {
	s := mustSigner(b, testSeed())
	v := s.Verifier()
	msg := make([]byte, 48<<10)
	sig := s.Sign("block", msg)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(s.KeyID(), [SaltSize]byte{}, "block", msg, sig); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleSigner_Sign() {
	seed := make([]byte, SeedSize) // use a random or key-file seed in practice
	s, _ := NewSigner(seed)
	sig := s.Sign("manifest", []byte("generation 7"))
	err := s.Verifier().Verify(s.KeyID(), s.Salt(), "manifest", []byte("generation 7"), sig)
	fmt.Println(len(sig), err)
	// Output: 64 <nil>
}
