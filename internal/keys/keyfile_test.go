package keys

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden key files in testdata")

// goldenTime is the creation time stamped on the golden key files.
var goldenTime = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

var goldenVariants = []struct {
	name    string
	classic bool
	cipher  Cipher
	seed    uint64 // for cryptotest.SetGlobalRandom
}{
	{"hybrid", false, CipherHybrid, 1},
	{"x25519", true, CipherX25519, 2},
}

func goldenPath(kind, variant string) string {
	return filepath.Join("testdata", kind+"-"+variant+".key")
}

// writeGolden regenerates a golden pair from a fixed random stream.
func writeGolden(t *testing.T, variant string, classic bool, seed uint64) {
	cryptotest.SetGlobalRandom(t, seed)
	o, s, err := Generate(classic)
	if err != nil {
		t.Fatal(err)
	}
	o.created, s.created = goldenTime, goldenTime
	if err := os.WriteFile(goldenPath("owner", variant), o.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath("server", variant), s.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readGolden(t testing.TB, kind, variant string) []byte {
	t.Helper()
	data, err := os.ReadFile(goldenPath(kind, variant))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGoldenKeyFiles checks that the golden files parse, that marshaling
// reproduces them byte for byte, and that the pair belongs together.
func TestGoldenKeyFiles(t *testing.T) {
	for _, v := range goldenVariants {
		t.Run(v.name, func(t *testing.T) {
			if *update {
				writeGolden(t, v.name, v.classic, v.seed)
			}
			ownerText, serverText := readGolden(t, "owner", v.name), readGolden(t, "server", v.name)
			o, err := ParseOwner(ownerText)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseServer(serverText)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.Marshal(); !bytes.Equal(got, ownerText) {
				t.Errorf("owner Marshal differs from golden:\n%s", got)
			}
			if got := s.Marshal(); !bytes.Equal(got, serverText) {
				t.Errorf("server Marshal differs from golden:\n%s", got)
			}
			if got := o.Server().Marshal(); !bytes.Equal(got, serverText) {
				t.Errorf("owner.Server() does not reproduce the server file")
			}
			if o.Cipher() != v.cipher || s.Cipher() != v.cipher || !o.Created().Equal(goldenTime) {
				t.Errorf("cipher %v/%v, created %v", o.Cipher(), s.Cipher(), o.Created())
			}
			msg := []byte("golden")
			if _, err := open(o.Opener(), s.Cipher(), seal(t, s.Sealer(), msg)); err != nil {
				t.Errorf("golden server sealer / owner opener: %v", err)
			}
		})
	}
}

// keyFileCase is one damaged or unusual key file.
type keyFileCase struct {
	name string
	text string
	want string // substring of the error; "" means it must parse
	is   error  // if non-nil, the error must wrap it
}

func replaceField(text, key, value string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, key+":") {
			l = key + ": " + value
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func dropField(text, key string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, key+":") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func fieldLine(text, key string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, key+":") {
			return l
		}
	}
	return ""
}

// commonCases are damage cases shared by both file kinds; header is the
// kind's first field.
func commonCases(base, header string) []keyFileCase {
	b64 := base64.StdEncoding.EncodeToString
	return []keyFileCase{
		// Marshal output: parses.
		{"golden", base, "", nil},
		// Windows line endings, blank lines, indentation, trailing spaces: parse.
		{"crlf", strings.ReplaceAll(base, "\n", "\r\n"), "", nil},
		{"whitespace", "\n\n  " + strings.ReplaceAll(base, "\n", "  \n\n\t"), "", nil},
		// No created field: optional, parses.
		{"no created", dropField(base, fieldCreated), "", nil},
		// Comments only: no fields.
		{"comments only", "# nothing here\n", "no fields found", nil},
		{"empty", "", "no fields found", nil},
		// Not a Lazarus file at all.
		{"wrong header", strings.Replace(base, header+":", "lazarus-key:", 1), "expected \"" + header + "\"", nil},
		// A newer format: ErrUnknownVersion with an exact message.
		{"version 2", replaceField(base, header, "2"), "key file format version 2 is newer than this program understands (1)", ErrUnknownVersion},
		// Malformed versions.
		{"version 0", replaceField(base, header, "0"), "malformed format version", nil},
		{"version 01", replaceField(base, header, "01"), "malformed format version", nil},
		{"version 1.0", replaceField(base, header, "1.0"), "malformed format version", nil},
		{"version huge", replaceField(base, header, "99999999999"), "malformed format version", nil},
		// Header not first.
		{"header last", dropField(base, header) + header + ": 1\n", "first field is", nil},
		{"missing seed", dropField(base, fieldSeed), "missing field \"signing-seed\"", nil},
		{"duplicate seed", base + fieldLine(base, fieldSeed) + "\n", "duplicate field \"signing-seed\"", nil},
		{"duplicate header", base + header + ": 1\n", "duplicate field", nil},
		{"duplicate created", base + fieldLine(base, fieldCreated) + "\n", "duplicate field \"created\"", nil},
		{"unknown field", base + "note: hello\n", "unknown field \"note\"", nil},
		{"no colon", base + "signing seed\n", "expected \"name: value\"", nil},
		{"uppercase name", base + "Signing-Seed: x\n", "malformed field name", nil},
		{"empty value", replaceField(base, fieldSeed, ""), "field \"signing-seed\" is empty", nil},
		{"bad base64", replaceField(base, fieldSeed, "!!!!"), "not valid base64", nil},
		{"unpadded base64", replaceField(base, fieldSeed, strings.TrimRight(b64(testSeed()), "=")), "not valid base64", nil},
		{"url base64", replaceField(base, fieldSeed, base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, 32))), "not valid base64", nil},
		{"truncated seed", replaceField(base, fieldSeed, b64(testSeed()[:31])), "is 31 bytes, want 32", nil},
		{"long seed", replaceField(base, fieldSeed, b64(append(testSeed(), 0))), "is 33 bytes, want 32", nil},
		{"bad created", replaceField(base, fieldCreated, "yesterday"), "not an RFC 3339 time", nil},
		{"invalid utf-8", base + "# \xff\n", "not valid UTF-8", nil},
		{"too large", base + "#" + strings.Repeat("x", MaxKeyFileSize) + "\n", "larger than", nil},
	}
}

func checkParse(t *testing.T, tc keyFileCase, err error) {
	t.Helper()
	switch {
	case tc.want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
		t.Errorf("error = %v, want it to contain %q", err, tc.want)
	case tc.is != nil && !errors.Is(err, tc.is):
		t.Errorf("error = %v, want it to wrap %v", err, tc.is)
	}
}

// roundTripStable checks the fuzz property: what parses marshals to text
// that parses to the same key and marshals identically.
func roundTripStable[K interface{ Marshal() []byte }](t *testing.T, data []byte, parse func([]byte) (K, error)) {
	k, err := parse(data)
	if err != nil {
		return
	}
	m1 := k.Marshal()
	k2, err := parse(m1)
	if err != nil {
		t.Fatalf("Marshal output does not parse: %v\n%s", err, m1)
	}
	if m2 := k2.Marshal(); !bytes.Equal(m1, m2) {
		t.Fatalf("Marshal not stable:\n%s\n---\n%s", m1, m2)
	}
}

func addKeyFileSeeds(f *testing.F, kind string) {
	for _, v := range goldenVariants {
		data, err := os.ReadFile(goldenPath(kind, v.name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
	}
	f.Add([]byte("lazarus-owner-key: 2\n"))
	f.Add([]byte("lazarus-server-key: 1\ncreated: 2025-01-01T00:00:00+01:00\n"))
}
