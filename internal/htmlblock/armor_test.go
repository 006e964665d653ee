package htmlblock

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestArmorExactFormat(t *testing.T) {
	// 60 bytes encode to 80 characters: one full line and one of 4.
	payload := testPayload(7, 60)
	enc := base64.StdEncoding.EncodeToString(payload)
	want := "<!-- lazarus block 1\n" + enc[:76] + "\n" + enc[76:] + "\n-->"
	got := mustArmor(t, KindBlock, payload)
	if string(got) != want {
		t.Fatalf("Armor =\n%s\nwant\n%s", got, want)
	}
}

// TestArmorRoundTrip covers payload sizes around the padding and line-length
// boundaries (57 payload bytes fill one 76-character line).
func TestArmorRoundTrip(t *testing.T) {
	sizes := []int{1, 2, 3, 4, 55, 56, 57, 58, 59, 113, 114, 115, 116, 171, 1000, 65536}
	for _, kind := range []Kind{KindBlock, KindManifest} {
		for _, n := range sizes {
			payload := testPayload(uint64(n), n)
			c := mustArmor(t, kind, payload)
			checkArmorShape(t, c, kind)
			found := Scan(c)
			checkFound(t, found, payload)
			if found[0].Kind != kind || found[0].Version != Version || found[0].Offset != 0 || found[0].End != len(c) {
				t.Errorf("%s/%d: found %+v", kind, n, found[0])
			}
			if ok, _ := matchComment(c, nil); !ok {
				t.Errorf("%s/%d: armored comment does not match the grammar", kind, n)
			}
		}
	}
}

// checkArmorShape checks the invariants every armored comment has.
func checkArmorShape(t *testing.T, c []byte, kind Kind) {
	t.Helper()
	head := "<!-- lazarus " + string(kind) + " 1\n"
	if !bytes.HasPrefix(c, []byte(head)) || !bytes.HasSuffix(c, []byte("\n-->")) {
		t.Fatalf("comment %.40q… lacks header or trailer", c)
	}
	inner := c[len("<!--") : len(c)-len("-->")]
	if bytes.Contains(inner, []byte("--")) || bytes.Contains(inner, []byte(">")) {
		t.Errorf("comment contains \"--\" or \">\" inside")
	}
	lines := strings.Split(string(c[len(head):len(c)-len("-->")]), "\n")
	if lines[len(lines)-1] != "" {
		t.Errorf("last body line not followed by a newline")
	}
	lines = lines[:len(lines)-1]
	for i, l := range lines {
		if len(l) != LineLen && i != len(lines)-1 || len(l) == 0 || len(l) > LineLen {
			t.Errorf("body line %d of %d has %d characters", i, len(lines), len(l))
		}
	}
}

func TestArmorErrors(t *testing.T) {
	tests := []struct {
		name    string
		kind    Kind
		payload []byte
		is      error // expected sentinel, or nil for a plain error
	}{
		{"empty payload", KindBlock, nil, nil},
		{"empty kind", "", []byte{1}, nil},
		{"upper-case kind", "Block", []byte{1}, nil},
		{"kind with digit", "block2", []byte{1}, nil},
		{"kind with space", "a b", []byte{1}, nil},
		{"kind too long", Kind(strings.Repeat("k", MaxKindLen+1)), []byte{1}, nil},
		{"payload too large", KindBlock, make([]byte, maxPayload+1), ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Armor(tt.kind, tt.payload)
			if err == nil {
				t.Fatalf("Armor succeeded: %.40q", c)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
		})
	}
}

func TestArmorLongestKind(t *testing.T) {
	kind := Kind(strings.Repeat("z", MaxKindLen))
	c := mustArmor(t, kind, []byte("x"))
	found := Scan(c)
	if len(found) != 1 || found[0].Kind != kind || !errors.Is(found[0].Err, ErrUnknownKind) {
		t.Fatalf("Scan = %+v, want one %q comment with ErrUnknownKind", found, kind)
	}
}
