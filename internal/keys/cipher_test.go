package keys

import (
	"errors"
	"testing"
)

func TestCipherValuesAndNames(t *testing.T) {
	// The numeric values are in every block header: they must never change.
	tests := []struct {
		c    Cipher
		val  uint8
		name string
	}{
		{CipherNone, 0, "public"},
		{CipherX25519, 1, "age-x25519"},
		{CipherHybrid, 2, "age-pq-hybrid"},
		{CipherScrypt, 3, "age-scrypt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if uint8(tt.c) != tt.val {
				t.Errorf("value = %d, want %d", uint8(tt.c), tt.val)
			}
			if got := tt.c.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			c, err := ParseCipher(tt.name)
			if err != nil || c != tt.c {
				t.Errorf("ParseCipher(%q) = %v, %v; want %v", tt.name, c, err, tt.c)
			}
			if !tt.c.Known() || tt.c.Encrypted() != (tt.c != CipherNone) {
				t.Errorf("Known/Encrypted wrong for %v", tt.c)
			}
		})
	}
	if DefaultCipher != CipherHybrid {
		t.Errorf("DefaultCipher = %v, want age-pq-hybrid", DefaultCipher)
	}
}

func TestCipherUnknown(t *testing.T) {
	c := Cipher(4)
	if c.Known() || c.Encrypted() {
		t.Errorf("Cipher(4) reported as known")
	}
	if got := c.String(); got != "cipher(4)" {
		t.Errorf("String() = %q, want cipher(4)", got)
	}
	for _, name := range []string{"", "none", "AGE-X25519", "age-pq-hybrid ", "cipher(4)"} {
		if _, err := ParseCipher(name); !errors.Is(err, ErrUnknownCipher) {
			t.Errorf("ParseCipher(%q) error = %v, want ErrUnknownCipher", name, err)
		}
	}
}
