package keys

import (
	"strings"
	"testing"
)

func TestParseServerDamage(t *testing.T) {
	base := string(readGolden(t, "server", "x25519"))
	r := strings.TrimPrefix(fieldLine(base, fieldRecipient), fieldRecipient+": ")
	cases := append(commonCases(base, fieldServerHeader),
		keyFileCase{"uppercase recipient", replaceField(base, fieldRecipient, strings.ToUpper(r)), "", nil},
		keyFileCase{"missing recipient", dropField(base, fieldRecipient), "missing field \"age-recipient\"", nil},
		keyFileCase{"recipient typo", replaceField(base, fieldRecipient, r[:20]+"x"+r[21:]), "malformed recipient", nil},
		// A secret key must never be put on the server.
		keyFileCase{"secret key as recipient", replaceField(base, fieldRecipient, "AGE-SECRET-KEY-1QQQQ"), "age secret key, not a recipient", nil},
		keyFileCase{"not a recipient", replaceField(base, fieldRecipient, "ssh-ed25519 AAAA"), "not an age recipient", nil},
		// owner.key given where server.key is expected.
		keyFileCase{"owner file", string(readGolden(t, "owner", "x25519")), "this is an owner key file (owner.key), which must stay offline", nil},
		keyFileCase{"identity field", base + "age-identity: x\n", "unknown field \"age-identity\"", nil},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseServer([]byte(tc.text))
			checkParse(t, tc, err)
		})
	}
}

func FuzzParseServer(f *testing.F) {
	addKeyFileSeeds(f, "server")
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTripStable(t, data, ParseServer)
	})
}
