package history

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The digests of the empty payload, in the forms archives list them.
const (
	emptySHA1      = "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
	emptySHA256Hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	emptySHA256B32 = "4OYMIQUY7QOBJGX36TEJS35ZEQT24QPEMSNZGTFESWMRW6CSXBKQ"
)

// TestParseDigest: every spelling archives use parses to the digest of
// the empty payload with its algorithm; anything else is unknown.
func TestParseDigest(t *testing.T) {
	sha1, sha256 := SHA1.Of(nil), SHA256.Of(nil)
	for _, tt := range []struct {
		in   string
		want Digest // zero: unknown
	}{
		{emptySHA1, sha1},                                     // a CDX listing's SHA-1
		{"sha1:" + emptySHA1, sha1},                           // WARC-Payload-Digest spelling
		{"SHA1:" + strings.ToLower(emptySHA1), sha1},          // any case
		{"sha-1:" + emptySHA1, sha1},                          // hyphenated label
		{emptySHA1 + "====", sha1},                            // padded (no padding is needed for 20 bytes)
		{" " + emptySHA1 + "\n", sha1},                        // spaces around
		{"sha256:" + emptySHA256Hex, sha256},                  // hex, as warcio.js writes it
		{"sha256:" + strings.ToUpper(emptySHA256Hex), sha256}, // upper-case hex
		{"sha256:" + emptySHA256B32, sha256},                  // base32, as Heritrix writes it
		{"sha256:" + emptySHA256B32 + "====", sha256},         // padded base32
		{"SHA256:" + strings.ToLower(emptySHA256B32), sha256}, // any case
		{"sha-256:" + emptySHA256Hex, sha256},                 // hyphenated label
		{"SHA-256:" + emptySHA256B32, sha256},                 // both
		{emptySHA256Hex, sha256},                              // bare hex: 64 digits are a SHA-256
		{emptySHA256B32, sha256},                              // bare base32: 52 characters are a SHA-256
		{"", Digest{}},                                        // none
		{"-", Digest{}},                                       // CDX "no digest"
		{emptySHA1[:31], Digest{}},                            // too short
		{emptySHA1[:31] + "1", Digest{}},                      // 1 is not base32
		{"md5:" + emptySHA1, Digest{}},                        // another hash
		{"sha256:" + emptySHA1, Digest{}},                     // a SHA-1 labelled SHA-256
		{"sha1:" + emptySHA256Hex, Digest{}},                  // a SHA-256 labelled SHA-1
		{"sha1:" + emptySHA256B32, Digest{}},                  // likewise in base32
		{strings.Repeat("A", 40), Digest{}},                   // hex SHA-1 length
		{"sha256:" + emptySHA256Hex[:63] + "g", Digest{}},     // not hex
		{"sha256:" + emptySHA256B32[:51] + "R", Digest{}},     // stray bits past the sum
		{"sha256:" + emptySHA256Hex + "==", Digest{}},         // hex is never padded
		{"sha256:sha256:" + emptySHA256Hex, Digest{}},         // two labels
		{":" + emptySHA1, Digest{}},                           // an empty label
	} {
		got, ok := ParseDigest(tt.in)
		if got != tt.want || ok == tt.want.IsZero() {
			t.Errorf("ParseDigest(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
}

// TestDigestMatches: a digest checks bytes with its own algorithm.
func TestDigestMatches(t *testing.T) {
	page := []byte("<html><body>hi</body></html>\n")
	for _, listed := range []string{"GLGNOMTTGQ2ZGPKMFKMLZXRHFZR56KTW", "sha256:3e189266d0af953947c3e7669682d6fade219e406f765969c5e8d564a3469a69"} {
		d, ok := ParseDigest(listed)
		if !ok || !d.Matches(page) || d.Matches(page[1:]) {
			t.Errorf("%s: parsed %v, matches the page %v, matches other bytes %v", listed, ok, d.Matches(page), d.Matches(page[1:]))
		}
	}
	if (Digest{}).Matches(nil) {
		t.Error("the zero Digest matches the empty page")
	}
	if got := SHA256.Of(nil).String(); got != "sha256:"+emptySHA256Hex {
		t.Errorf("String = %s", got)
	}
}

// TestLookupEitherAlgorithm: a record written now is found by its SHA-1
// and its SHA-256 in any spelling; one written by an older version
// (SHA-1 only, no sha256 field) still loads and is found by its SHA-1.
func TestLookupEitherAlgorithm(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	now := record("", "/", t0)
	st.m[BatchKey(gen1)] = []byte(`{"v":1,"digest":"GLGNOMTTGQ2ZGPKMFKMLZXRHFZR56KTW","url":"/old/","time":"2026-11-20T12:00:00Z"}` + "\n")
	if err := Add(ctx, st, now); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(ctx, st)
	if err != nil || ix.Skipped != 0 || len(ix.Records) != 2 {
		t.Fatalf("loaded %d records, skipped %d: %v", len(ix.Records), ix.Skipped, err)
	}
	for _, listed := range []string{emptySHA1, "sha1:" + emptySHA1, "sha256:" + emptySHA256Hex, "sha256:" + emptySHA256B32, emptySHA256B32 + "====", "SHA-256:" + strings.ToUpper(emptySHA256Hex)} {
		if rec, ok := ix.Lookup(listed); !ok || rec.URL != "/" {
			t.Errorf("Lookup(%s) = %+v, %v; want the record of /", listed, rec, ok)
		}
	}
	if rec, ok := ix.Lookup("sha1:GLGNOMTTGQ2ZGPKMFKMLZXRHFZR56KTW"); !ok || rec.URL != "/old/" {
		t.Errorf("the older record is not found by its SHA-1: %+v, %v", rec, ok)
	}
	if _, ok := ix.Lookup("sha256:3e189266d0af953947c3e7669682d6fade219e406f765969c5e8d564a3469a69"); ok {
		t.Error("the older record, which has no SHA-256, is found by one")
	}
	for _, listed := range []string{"", "-", "sha256:" + emptySHA1, "md5:d41d8cd98f00b204e9800998ecf8427e"} {
		if _, ok := ix.Lookup(listed); ok {
			t.Errorf("Lookup(%q) found a record", listed)
		}
	}
}

// TestLoadKeepsSHA256OfLaterRecord: a page version recorded first by an
// older version (SHA-1 only) and again since keeps its first time and
// gains the SHA-256; a batch holding the older record takes the newer
// one beside it.
func TestLoadKeepsSHA256OfLaterRecord(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	early := record("a", "/", t0)
	early.SHA256 = ""
	late := record("a", "/", t0.Add(time.Hour))
	if n, err := AddBatch(ctx, st, gen2, early); err != nil || n != 1 {
		t.Fatalf("AddBatch: %d, %v", n, err)
	}
	if n, err := AddBatch(ctx, st, gen2, late, early); err != nil || n != 1 {
		t.Fatalf("AddBatch of the version with its SHA-256: %d added, %v; want 1", n, err)
	}
	if n, err := AddBatch(ctx, st, gen2, late, early); err != nil || n != 0 {
		t.Fatalf("AddBatch again: %d added, %v; want 0", n, err)
	}
	ix, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := ix.Lookup("sha256:" + late.SHA256)
	if !ok || !got.Time.Equal(t0) || got.SHA256 != late.SHA256 || len(ix.Records) != 1 {
		t.Fatalf("Lookup by SHA-256 = %+v, %v; want the first time %v with the SHA-256", got, ok, t0)
	}
	if e := Earlier(late, early); !e.Time.Equal(t0) || e.SHA256 != late.SHA256 {
		t.Errorf("Earlier(late, early) = %+v", e)
	}
}
