package keys

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"filippo.io/age"
)

// seal encrypts data with s.
func seal(t testing.TB, s *Sealer, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := s.Encrypt(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// open decrypts ct with o, reading the whole plaintext.
func open(o *Opener, c Cipher, ct []byte) ([]byte, error) {
	r, err := o.Decrypt(c, bytes.NewReader(ct))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func mustGenerate(t testing.TB, classic bool) (*Owner, *Server) {
	t.Helper()
	o, s, err := Generate(classic)
	if err != nil {
		t.Fatal(err)
	}
	return o, s
}

// passphrase mode is slow to set up (Argon2id), so tests share one pair.
var passphraseModeOnce = sync.OnceValues(func() (*Sealer, *Opener) {
	s, err := PassphraseSealer([]byte("correct horse"), NewSalt(), testOpts)
	if err != nil {
		panic(err)
	}
	o, err := PassphraseOpener([]byte("correct horse"), testOpts)
	if err != nil {
		panic(err)
	}
	return s, o
})

type mode struct {
	name   string
	sealer *Sealer
	opener *Opener
}

func allModes(t *testing.T) []mode {
	hybridOwner, hybridServer := mustGenerate(t, false)
	classicOwner, classicServer := mustGenerate(t, true)
	ps, po := passphraseModeOnce()
	return []mode{
		{"public unsigned", PublicSealer(nil), &Opener{}},
		{"public signed", PublicSealer(hybridServer.Signer()), hybridOwner.Opener()},
		{"x25519", classicServer.Sealer(), classicOwner.Opener()},
		{"hybrid", hybridServer.Sealer(), hybridOwner.Opener()},
		{"scrypt", ps, po},
	}
}

// TestSealOpenRoundTrip encrypts and decrypts, signs and verifies, in every
// mode at sizes around age's 64 KiB chunk boundary.
func TestSealOpenRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10}
	if raceEnabled {
		sizes = sizes[:5] // the large case adds little but time under -race
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range allModes(t) {
		for _, n := range sizes {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			ct := seal(t, m.sealer, data)
			got, err := open(m.opener, m.sealer.Cipher, ct)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s/%d: round trip failed: %v", m.name, n, err)
			}
			if m.sealer.Cipher.Encrypted() && n >= 16 && bytes.Contains(ct, data) {
				t.Errorf("%s/%d: plaintext visible in ciphertext", m.name, n)
			}
		}
		if s := m.sealer.Signer; s != nil {
			sig := s.Sign("block", []byte("hdr"))
			if err := m.opener.Verifier.Verify(s.KeyID(), s.Salt(), "block", []byte("hdr"), sig); err != nil {
				t.Errorf("%s: sign/verify: %v", m.name, err)
			}
		}
	}
}

func TestPublicEncryptDoesNotClose(t *testing.T) {
	w := &closeRecorder{}
	wc, err := PublicSealer(nil).Encrypt(w)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(wc, "plain")
	if err := wc.Close(); err != nil || w.closed || w.String() != "plain" {
		t.Errorf("Close = %v, closed = %v, written %q", err, w.closed, w.String())
	}
}

type closeRecorder struct {
	bytes.Buffer
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestDecryptWrongKey(t *testing.T) {
	hybridOwner, hybridServer := mustGenerate(t, false)
	otherHybrid, _ := mustGenerate(t, false)
	classicOwner, classicServer := mustGenerate(t, true)
	ps, po := passphraseModeOnce()
	wrongPass, err := PassphraseOpener([]byte("incorrect horse"), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	hybridCT := seal(t, hybridServer.Sealer(), []byte("x"))
	classicCT := seal(t, classicServer.Sealer(), []byte("x"))
	scryptCT := seal(t, ps, []byte("x"))
	tests := []struct {
		name   string
		opener *Opener
		c      Cipher
		ct     []byte
		want   string // substring of the ErrWrongKey message
	}{
		// Another owner's hybrid key: not encrypted to you.
		{"other hybrid owner", otherHybrid.Opener(), CipherHybrid, hybridCT, "not encrypted to your owner key"},
		// Classic owner key on a hybrid segment.
		{"x25519 owner, hybrid segment", classicOwner.Opener(), CipherHybrid, hybridCT, "your owner key is for age-x25519"},
		// Hybrid owner key on a classic segment.
		{"hybrid owner, x25519 segment", hybridOwner.Opener(), CipherX25519, classicCT, "your owner key is for age-pq-hybrid"},
		// Header claims X25519 but the segment is hybrid, owner is classic.
		{"header lies about cipher", classicOwner.Opener(), CipherX25519, hybridCT, "not encrypted to your owner key"},
		// Wrong passphrase.
		{"wrong passphrase", wrongPass, CipherScrypt, scryptCT, "wrong passphrase"},
		// Owner key on a passphrase segment.
		{"owner key, scrypt segment", hybridOwner.Opener(), CipherScrypt, scryptCT, "passphrase-encrypted"},
		// Passphrase on an owner-key segment.
		{"passphrase, hybrid segment", po, CipherHybrid, hybridCT, "not to a passphrase"},
		// No identities at all.
		{"no key", &Opener{}, CipherHybrid, hybridCT, "no key given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := open(tt.opener, tt.c, tt.ct)
			if !errors.Is(err, ErrWrongKey) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decrypt = %v, want ErrWrongKey containing %q", err, tt.want)
			}
		})
	}
}

func TestDecryptDamaged(t *testing.T) {
	owner, server := mustGenerate(t, true)
	ct := seal(t, server.Sealer(), bytes.Repeat([]byte("payload "), 100))
	// Unknown cipher value: ErrUnknownCipher, not a wrong key.
	if _, err := open(owner.Opener(), Cipher(9), ct); !errors.Is(err, ErrUnknownCipher) {
		t.Errorf("cipher 9: %v, want ErrUnknownCipher", err)
	}
	// Truncated header: an error that is not ErrWrongKey.
	if _, err := open(owner.Opener(), CipherX25519, ct[:20]); err == nil || errors.Is(err, ErrWrongKey) {
		t.Errorf("truncated header: %v, want a non-wrong-key error", err)
	}
	// Flipped payload byte: the reader reports an error.
	bad := append([]byte(nil), ct...)
	bad[len(bad)-5] ^= 1
	if _, err := open(owner.Opener(), CipherX25519, bad); err == nil {
		t.Errorf("damaged payload decrypted without error")
	}
}

func TestSealerCheck(t *testing.T) {
	_, hybrid := mustGenerate(t, false)
	_, classic := mustGenerate(t, true)
	scryptR, err := age.NewScryptRecipient("p")
	if err != nil {
		t.Fatal(err)
	}
	scryptR.SetWorkFactor(testOpts.WorkFactor)
	signer := hybrid.Signer()
	tests := []struct {
		name string
		s    Sealer
		ok   bool
	}{
		{"public unsigned", Sealer{Cipher: CipherNone}, true},
		{"public signed", Sealer{Cipher: CipherNone, Signer: signer}, true},
		{"hybrid", *hybrid.Sealer(), true},
		{"x25519", *classic.Sealer(), true},
		{"scrypt", Sealer{Cipher: CipherScrypt, Recipients: []age.Recipient{scryptR}, Signer: signer}, true},
		// Unknown cipher value.
		{"unknown cipher", Sealer{Cipher: 7, Signer: signer}, false},
		// Public mode with a recipient: the label would lie.
		{"public with recipient", Sealer{Cipher: CipherNone, Recipients: hybrid.Sealer().Recipients}, false},
		// Encrypted mode without a signer: forgeries would be undetectable.
		{"hybrid unsigned", Sealer{Cipher: CipherHybrid, Recipients: hybrid.Sealer().Recipients}, false},
		// Encrypted mode without recipients.
		{"hybrid no recipient", Sealer{Cipher: CipherHybrid, Signer: signer}, false},
		// Header says hybrid, recipient is classic.
		{"cipher mismatch", Sealer{Cipher: CipherHybrid, Recipients: classic.Sealer().Recipients, Signer: signer}, false},
		// Two scrypt recipients.
		{"two scrypt", Sealer{Cipher: CipherScrypt, Recipients: []age.Recipient{scryptR, scryptR}, Signer: signer}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Check()
			if (err == nil) != tt.ok {
				t.Errorf("Check() = %v, want ok=%v", err, tt.ok)
			}
			if _, err := tt.s.Encrypt(io.Discard); (err == nil) != tt.ok {
				t.Errorf("Encrypt() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func BenchmarkEncrypt_Hybrid_1M(b *testing.B) {
	_, server := mustGenerate(b, false)
	s := server.Sealer()
	data := make([]byte, 1<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := s.Encrypt(io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecrypt_Hybrid_1M(b *testing.B) {
	owner, server := mustGenerate(b, false)
	ct := seal(b, server.Sealer(), make([]byte, 1<<20))
	o := owner.Opener()
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		r, err := o.Decrypt(CipherHybrid, bytes.NewReader(ct))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
