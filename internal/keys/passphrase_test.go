package keys

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// testOpts keeps scrypt fast in tests; production uses work factor 18.
var testOpts = &PassphraseOptions{WorkFactor: 10, MaxWorkFactor: 12}

// TestPassphraseSignerVector pins the Argon2id derivation (cross-checked
// with an independent Argon2id and Ed25519 implementation).
func TestPassphraseSignerVector(t *testing.T) {
	var salt [SaltSize]byte
	for i := range salt {
		salt[i] = byte(i)
	}
	s, err := PassphraseSigner([]byte("correct horse battery staple"), salt)
	if err != nil {
		t.Fatal(err)
	}
	const (
		wantSeed = "853b272a44db1421c02962669a55eb0994f3cab385ed1c4c79253eee19bab49e"
		wantPub  = "d186869796ae37ed6f5c5ecb931fbc9aeede53936782930aa39e4d5c71aa14e3"
		wantID   = "d709d413ca3febea"
	)
	if got := hex.EncodeToString(s.Seed()); got != wantSeed {
		t.Errorf("seed = %s, want %s", got, wantSeed)
	}
	if got := hex.EncodeToString(s.Public()); got != wantPub {
		t.Errorf("public key = %s, want %s", got, wantPub)
	}
	if got := FormatKeyID(s.KeyID()); got != wantID {
		t.Errorf("key id = %s, want %s", got, wantID)
	}
	if s.Salt() != salt {
		t.Errorf("Salt() = %x, want %x", s.Salt(), salt)
	}
}

func TestPassphraseSignerRejects(t *testing.T) {
	// Empty passphrase: rejected.
	if _, err := PassphraseSigner(nil, NewSalt()); err == nil {
		t.Errorf("accepted an empty passphrase")
	}
	// All-zero salt: the caller forgot to choose one; rejected.
	if _, err := PassphraseSigner([]byte("x"), [SaltSize]byte{}); err == nil {
		t.Errorf("accepted an all-zero salt")
	}
}

func TestNewSaltRandom(t *testing.T) {
	if a, b := NewSalt(), NewSalt(); a == b || a == ([SaltSize]byte{}) {
		t.Errorf("NewSalt returned %x then %x", a, b)
	}
}

func TestPassphraseOptions(t *testing.T) {
	tests := []struct {
		name      string
		opts      *PassphraseOptions
		work, max int
		wantErr   bool
	}{
		{"nil", nil, 18, 20, false},
		{"zero", &PassphraseOptions{}, 18, 20, false},
		{"custom", &PassphraseOptions{WorkFactor: 10, MaxWorkFactor: 22}, 10, 22, false},
		{"work negative", &PassphraseOptions{WorkFactor: -1}, 0, 0, true},
		{"work too big", &PassphraseOptions{WorkFactor: 31}, 0, 0, true},
		{"max too big", &PassphraseOptions{MaxWorkFactor: 31}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, max, err := tt.opts.resolve()
			if (err != nil) != tt.wantErr || work != tt.work || max != tt.max {
				t.Errorf("resolve() = %d, %d, %v; want %d, %d, error %v", work, max, err, tt.work, tt.max, tt.wantErr)
			}
		})
	}
}

func TestPassphraseConstructorsReject(t *testing.T) {
	if _, err := PassphraseSealer(nil, NewSalt(), testOpts); err == nil {
		t.Errorf("PassphraseSealer accepted an empty passphrase")
	}
	if _, err := PassphraseOpener([]byte{}, testOpts); err == nil {
		t.Errorf("PassphraseOpener accepted an empty passphrase")
	}
	if _, err := PassphraseSealer([]byte("x"), NewSalt(), &PassphraseOptions{WorkFactor: 99}); err == nil {
		t.Errorf("PassphraseSealer accepted work factor 99")
	}
	if _, err := PassphraseOpener([]byte("x"), &PassphraseOptions{MaxWorkFactor: -3}); err == nil {
		t.Errorf("PassphraseOpener accepted max work factor -3")
	}
}

func TestPassphraseWorkFactorAboveMax(t *testing.T) {
	pass := []byte("pass")
	s, err := PassphraseSealer(pass, NewSalt(), &PassphraseOptions{WorkFactor: 13})
	if err != nil {
		t.Fatal(err)
	}
	o, err := PassphraseOpener(pass, testOpts) // max 12
	if err != nil {
		t.Fatal(err)
	}
	ct := seal(t, s, []byte("data"))
	// A segment costing more than the configured maximum is refused, but
	// that is not a wrong passphrase.
	if _, err := o.Decrypt(CipherScrypt, bytes.NewReader(ct)); err == nil || errors.Is(err, ErrWrongKey) {
		t.Errorf("Decrypt = %v, want a work factor error", err)
	}
}

func TestReadPassphraseFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // "" means an error is expected
	}{
		{"plain", "secret", "secret"},
		{"one newline trimmed", "secret\n", "secret"},
		{"CRLF trimmed", "secret\r\n", "secret"},
		{"only one newline trimmed", "secret\n\n", "secret\n"},
		{"spaces kept", " secret \n", " secret "},
		{"bare CR kept", "secret\r", "secret\r"},
		{"empty", "", ""},
		{"only newline", "\n", ""},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, warn, err := ReadPassphraseFile(path)
			if tt.want == "" {
				if err == nil {
					t.Errorf("got %q, want an error", got)
				}
				return
			}
			if err != nil || string(got) != tt.want || warn != "" {
				t.Errorf("got %q, %q, %v; want %q", got, warn, err, tt.want)
			}
		})
	}
}

func TestReadPassphraseFileWarnsAndLimits(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil { // umask may have removed bits
		t.Fatal(err)
	}
	if _, warn, err := ReadPassphraseFile(open); err != nil || (warn == "") != (runtime.GOOS == "windows") {
		t.Errorf("mode 0644: warning %q, error %v; want a warning", warn, err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, maxPassphraseFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadPassphraseFile(big); err == nil {
		t.Errorf("accepted a passphrase file over the size limit")
	}
	if _, _, err := ReadPassphraseFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func BenchmarkPassphraseSigner(b *testing.B) {
	salt := NewSalt()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PassphraseSigner([]byte("correct horse battery staple"), salt); err != nil {
			b.Fatal(err)
		}
	}
}
