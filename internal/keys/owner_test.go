package keys

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"filippo.io/age"
)

func TestGenerate(t *testing.T) {
	for _, v := range goldenVariants {
		t.Run(v.name, func(t *testing.T) {
			o1, s1 := mustGenerate(t, v.classic)
			o2, _ := mustGenerate(t, v.classic)
			if o1.Cipher() != v.cipher || s1.Cipher() != v.cipher {
				t.Errorf("cipher %v/%v, want %v", o1.Cipher(), s1.Cipher(), v.cipher)
			}
			if o1.KeyID() == o2.KeyID() || fmt.Sprint(o1.Identity()) == fmt.Sprint(o2.Identity()) {
				t.Errorf("two generated keys are equal")
			}
			// The server key is the owner's recipient and signing key.
			if fmt.Sprint(o1.Recipient()) != fmt.Sprint(s1.Recipient()) || o1.KeyID() != s1.KeyID() {
				t.Errorf("server key does not match owner key")
			}
			if !bytes.Equal(o1.Signer().Public(), s1.Signer().Public()) || !o1.Created().IsZero() {
				t.Errorf("signer mismatch or unexpected creation time")
			}
			if _, ok := o1.Identity().(*age.X25519Identity); ok != v.classic {
				t.Errorf("identity type %T", o1.Identity())
			}
		})
	}
}

// TestForgedGeneration shows why signatures are needed: anyone can encrypt
// to the owner's public recipient, and it decrypts fine, but the signature
// names a key that is not the owner's.
func TestForgedGeneration(t *testing.T) {
	owner, server := mustGenerate(t, false)
	_, attacker := mustGenerate(t, false)
	forger := &Sealer{Cipher: CipherHybrid, Recipients: []age.Recipient{server.Recipient()}, Signer: attacker.Signer()}
	payload := []byte("malicious index.php")
	pt, err := open(owner.Opener(), CipherHybrid, seal(t, forger, payload))
	if err != nil || !bytes.Equal(pt, payload) {
		t.Fatalf("forged segment did not decrypt: %v", err)
	}
	sig := forger.Signer.Sign("manifest", payload)
	err = owner.Verifier().Verify(forger.Signer.KeyID(), forger.Signer.Salt(), "manifest", payload, sig)
	if !errors.Is(err, ErrUnknownSigner) {
		t.Errorf("Verify = %v, want ErrUnknownSigner", err)
	}
}

func TestParseOwnerDamage(t *testing.T) {
	base := string(readGolden(t, "owner", "x25519"))
	id := strings.TrimPrefix(fieldLine(base, fieldIdentity), fieldIdentity+": ")
	badSum := id[:len(id)-1] + map[bool]string{true: "Q", false: "P"}[strings.HasSuffix(id, "P")]
	cases := append(commonCases(base, fieldOwnerHeader),
		// Identity in lower case (retyped by hand): parses.
		keyFileCase{"lowercase identity", replaceField(base, fieldIdentity, strings.ToLower(id)), "", nil},
		keyFileCase{"missing identity", dropField(base, fieldIdentity), "missing field \"age-identity\"", nil},
		// One character changed: bech32 checksum catches the typo.
		keyFileCase{"identity typo", replaceField(base, fieldIdentity, badSum), "malformed secret key", nil},
		keyFileCase{"identity is a recipient", replaceField(base, fieldIdentity, "age1qqqq"), "not an age secret key", nil},
		// server.key given where owner.key is expected.
		keyFileCase{"server file", string(readGolden(t, "server", "x25519")), "this is a server key file (server.key), which cannot decrypt", nil},
		// The age-recipient field does not belong in an owner file.
		keyFileCase{"recipient field", base + "age-recipient: age1x\n", "unknown field \"age-recipient\"", nil},
	)
	want, err := ParseOwner([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseOwner([]byte(tc.text))
			checkParse(t, tc, err)
			if err == nil && (o.KeyID() != want.KeyID() || fmt.Sprint(o.Identity()) != fmt.Sprint(want.Identity())) {
				t.Errorf("parsed a different key")
			}
		})
	}
}

// TestParseErrorsHideSecrets checks that a malformed secret is not echoed.
func TestParseErrorsHideSecrets(t *testing.T) {
	base := string(readGolden(t, "owner", "x25519"))
	seed := strings.TrimPrefix(fieldLine(base, fieldSeed), fieldSeed+": ")
	for _, text := range []string{
		replaceField(base, fieldSeed, seed[:40]+"!!!!"),
		base + seed + "\n",
		base + seed + "x: y\n",
	} {
		_, err := ParseOwner([]byte(text))
		if err == nil || strings.Contains(err.Error(), seed[:20]) {
			t.Errorf("error %v (must exist and not contain the seed)", err)
		}
	}
}

func FuzzParseOwner(f *testing.F) {
	addKeyFileSeeds(f, "owner")
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTripStable(t, data, ParseOwner)
	})
}
