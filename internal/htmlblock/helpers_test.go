package htmlblock

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// testPayload returns n deterministic pseudo-random bytes.
func testPayload(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x1a2a))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

func mustArmor(t testing.TB, kind Kind, payload []byte) []byte {
	t.Helper()
	c, err := Armor(kind, payload)
	if err != nil {
		t.Fatalf("Armor(%q, %d bytes): %v", kind, len(payload), err)
	}
	return c
}

// checkFound fails unless found holds exactly the given intact payloads, in
// order.
func checkFound(t testing.TB, found []Found, payloads ...[]byte) {
	t.Helper()
	if len(found) != len(payloads) {
		t.Fatalf("found %d comments, want %d: %v", len(found), len(payloads), errs(found))
	}
	for i, f := range found {
		if f.Err != nil {
			t.Errorf("comment %d: unexpected error %v", i, f.Err)
			continue
		}
		if !bytes.Equal(f.Payload, payloads[i]) {
			t.Errorf("comment %d: payload of %d bytes differs from the %d bytes armored", i, len(f.Payload), len(payloads[i]))
		}
	}
}

func errs(found []Found) []error {
	var out []error
	for _, f := range found {
		out = append(out, f.Err)
	}
	return out
}
