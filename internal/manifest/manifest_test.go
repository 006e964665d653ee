package manifest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

type testSigner struct{ priv ed25519.PrivateKey }

func (s testSigner) KeyID() [8]byte { return [8]byte{1, 2, 3, 4, 5, 6, 7, 8} }
func (s testSigner) Salt() [16]byte { return [16]byte{} }
func (s testSigner) Sign(ctx string, m []byte) []byte {
	return ed25519.Sign(s.priv, append([]byte(ctx), m...))
}

func newSigner() testSigner {
	return testSigner{ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))}
}

func sampleManifest() *Manifest {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return &Manifest{
		Generation: ID{1}, Time: t0, Site: "https://example.org/", Previous: &ID{9},
		Cipher: "age-pq-hybrid",
		Segments: []Segment{{
			Name: "app", Kind: "data", ID: Digest(sha256.Sum256([]byte("c"))), Generation: ID{1}, Time: t0,
			Length: 1000, Code: "rs8", K: 3, M: 3, ShardSize: 334, Stripes: 1, TarSize: 4096, Files: 3,
		}},
		Listing: Listing{Inline: []byte("listing bytes")},
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	s := newSigner()
	enc, err := Encode(sampleManifest(), s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got.KeyID != s.KeyID() {
		t.Fatal("key id lost")
	}
	if !ed25519.Verify(s.priv.Public().(ed25519.PublicKey), append([]byte("manifest"), got.Digest[:]...), got.Signature[:]) {
		t.Fatal("signature does not verify over digest")
	}
	again, err := Encode(&got.Manifest, s)
	if err != nil || !bytes.Equal(again, enc) {
		t.Fatalf("re-encoding differs (err %v)", err)
	}
}

// TestEnvelopeDamage: each damaged manifest is refused with the error a
// caller branches on, never misread.
func TestEnvelopeDamage(t *testing.T) {
	good, err := Encode(sampleManifest(), newSigner())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		buf  []byte
		want error
	}{
		{"not a manifest", []byte("hello"), ErrNotManifest},
		{"version 2", edit(func(b []byte) []byte { b[4] = 2; return b }), ErrUnknownVersion},
		{"reserved byte", edit(func(b []byte) []byte { b[6] = 1; return b }), ErrInvalid},
		{"truncated", good[:len(good)-1], ErrInvalid},
		{"lying body length", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[32:], 5); return b }), ErrInvalid},
		{"flipped body byte", edit(func(b []byte) []byte { b[50] ^= 1; return b }), ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse(c.buf); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

// TestValidate: manifests that would mislead recovery are refused at both ends.
func TestValidate(t *testing.T) {
	cases := map[string]func(m *Manifest){
		"zero generation":      func(m *Manifest) { m.Generation = ID{} },
		"relative site":        func(m *Manifest) { m.Site = "/x" },
		"duplicate segment":    func(m *Manifest) { m.Segments = append(m.Segments, m.Segments[0]) },
		"wrong stripes":        func(m *Manifest) { m.Segments[0].Stripes = 2 },
		"k+m over 256":         func(m *Manifest) { m.Segments[0].M = 254 },
		"unknown code":         func(m *Manifest) { m.Segments[0].Code = "rs16" },
		"bad segment name":     func(m *Manifest) { m.Segments[0].Name = "a/b" },
		"no listing":           func(m *Manifest) { m.Listing = Listing{} },
		"both listings":        func(m *Manifest) { m.Listing.Segment = "app" },
		"missing list segment": func(m *Manifest) { m.Listing = Listing{Segment: "nope"} },
		"format 2":             func(m *Manifest) { m.Format = 2 },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			m := sampleManifest()
			f(m)
			m2 := *m
			if err := m.Validate(); err == nil {
				if name == "format 2" { // Encode forces the version it writes
					return
				}
				t.Fatal("Validate accepted it")
			}
			if _, err := Encode(&m2, nil); err == nil && name != "format 2" {
				t.Fatal("Encode accepted it")
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	m := sampleManifest()
	m.Listing.Inline = bytes.Repeat([]byte{1}, MaxEnvelope)
	if _, err := Encode(m, nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}

func TestListingRoundTrip(t *testing.T) {
	d := Digest{3}
	l := &FileList{
		Files:    []File{{Segment: "app", Path: "app/index.php", Type: "regular", Size: 10, Mode: "0644", MTime: time.Unix(5, 7).UTC(), SHA256: &d}},
		Carriers: []Carrier{{URL: "/about/", Blocks: []BlockRef{{"app", 0, 3}, {"db", 2, 0}}}},
	}
	enc, err := EncodeList(l)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeList(bytes.NewReader(enc))
	if err != nil {
		t.Fatal(err)
	}
	if got.Carriers[0].Blocks[1] != (BlockRef{"db", 2, 0}) || !got.Files[0].MTime.Equal(l.Files[0].MTime) || *got.Files[0].SHA256 != d {
		t.Fatalf("listing round trip: %+v", got)
	}
}

func TestBlockRefParse(t *testing.T) {
	for _, bad := range []string{"", "a", "a/1", "a/1/2/3", "a/x/1", "a/1/256", "/1/2", "a b/1/2", "a/-1/2"} {
		var r BlockRef
		if err := r.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// FuzzParse: Parse never panics; whatever it accepts re-encodes (unsigned
// fields aside) to a manifest that parses to the same value.
func FuzzParse(f *testing.F) {
	good, _ := Encode(sampleManifest(), newSigner())
	f.Add(good)
	f.Add([]byte("LZRM\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		s, err := Parse(buf)
		if err != nil {
			return
		}
		enc, err := Encode(&s.Manifest, nil)
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return
			}
			t.Fatalf("accepted manifest does not re-encode: %v", err)
		}
		if _, err := Parse(enc); err != nil {
			t.Fatalf("re-encoded manifest does not parse: %v", err)
		}
	})
}

// FuzzDecodeList: hostile listings never panic and are bounded.
func FuzzDecodeList(f *testing.F) {
	enc, _ := EncodeList(&FileList{Files: []File{{Path: "a"}}})
	f.Add(enc)
	f.Fuzz(func(t *testing.T, buf []byte) {
		l, err := DecodeList(bytes.NewReader(buf))
		if err == nil && l.Format != Version {
			t.Fatal("accepted wrong version")
		}
	})
}
