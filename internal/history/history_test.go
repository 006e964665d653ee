package history

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestSumsOf: the digests are the ones archives list. The empty
// payload's SHA-1 is the well-known Wayback value; the others were
// computed with coreutils (sha1sum | xxd -r -p | base32, sha256sum).
func TestSumsOf(t *testing.T) {
	for in, want := range map[string]Sums{
		"":                               {"3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		"<html><body>hi</body></html>\n": {"GLGNOMTTGQ2ZGPKMFKMLZXRHFZR56KTW", "3e189266d0af953947c3e7669682d6fade219e406f765969c5e8d564a3469a69"},
	} {
		if got := SumsOf([]byte(in)); got != want {
			t.Errorf("SumsOf(%q) = %+v, want %+v", in, got, want)
		}
	}
}

const (
	gen1 = "0123456789abcdef0123456789abcdef"
	gen2 = "fedcba9876543210fedcba9876543210"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func record(page, url string, at time.Time) Record {
	sums := SumsOf([]byte(page))
	return Record{Digest: sums.SHA1, SHA256: sums.SHA256, URL: url, Time: at, Manifest: gen2,
		Blocks: map[string][]string{gen2: {"app/0/1", "db/0/0"}, gen1: {"app/0/3"}}}
}

// envelope returns an unsigned manifest of generation gen.
func envelope(t testing.TB, gen string) []byte {
	t.Helper()
	id, err := manifest.ParseID(gen)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(gen))
	m := &manifest.Manifest{Generation: id, Time: t0, Site: "https://example.org/", Cipher: "public",
		Segments: []manifest.Segment{{Name: "app", Kind: "data", ID: sum, Generation: id, Time: t0,
			Length: 1000, Code: "rs8", K: 3, M: 3, ShardSize: 334, Stripes: 1, TarSize: 4096, Files: 3}},
		Listing: manifest.Listing{Inline: []byte("listing")}}
	env, err := manifest.Encode(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestRoundTrip: records added one per key and in batches, and manifests,
// load back as written, through a directory.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := Dir(t.TempDir())
	a, b, c := record("a", "/", t0), record("b", "/about/", t0.Add(time.Hour)), record("c", "/", t0.Add(2*time.Hour))
	c.Manifest, c.Blocks = "", nil // a page carrying nothing (its blocks moved away)
	if err := Add(ctx, st, a); err != nil {
		t.Fatal(err)
	}
	if n, err := AddBatch(ctx, st, gen2, b, c); err != nil || n != 2 {
		t.Fatalf("AddBatch: %d, %v", n, err)
	}
	if err := AddManifest(ctx, st, gen2, envelope(t, gen2)); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Skipped != 0 || ix.Truncated || len(ix.Records) != 3 || len(ix.Manifests) != 1 {
		t.Fatalf("loaded %d records, %d manifests, skipped %d, truncated %v", len(ix.Records), len(ix.Manifests), ix.Skipped, ix.Truncated)
	}
	for _, want := range []Record{a, b, c} {
		got, ok := ix.Lookup("sha1:" + strings.ToLower(want.Digest))
		if !ok || !equalRecords(got, want) {
			t.Errorf("Lookup(%s) = %+v, %v; want %+v", want.Digest, got, ok, want)
		}
	}
	if v := ix.Versions("/"); len(v) != 2 || v[0].Digest != a.Digest || v[1].Digest != c.Digest {
		t.Errorf("Versions(/) = %+v", v)
	}
	if _, err := manifest.Parse(ix.Manifests[gen2]); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(string(st), filepath.FromSlash(RecordKey(&a)))); err != nil {
		t.Errorf("single record not at its key: %v", err)
	}
}

func equalRecords(a, b Record) bool {
	return a.Digest == b.Digest && a.SHA256 == b.SHA256 && a.URL == b.URL && a.Time.Equal(b.Time) && a.Manifest == b.Manifest &&
		(len(a.Blocks) == 0 && len(b.Blocks) == 0 || reflect.DeepEqual(a.Blocks, b.Blocks))
}

// TestAddWritesNothingKnown: a batch holding every digest and a manifest
// already stored are not written again.
func TestAddWritesNothingKnown(t *testing.T) {
	ctx := context.Background()
	st := &countingStore{memStore: newMemStore()}
	a := record("a", "/", t0)
	if n, err := AddBatch(ctx, st, gen2, a, a); err != nil || n != 1 {
		t.Fatalf("AddBatch: %d, %v (a digest twice in one call counts once)", n, err)
	}
	if err := AddManifest(ctx, st, gen2, envelope(t, gen2)); err != nil {
		t.Fatal(err)
	}
	before := st.puts
	if n, err := AddBatch(ctx, st, gen2, a); err != nil || n != 0 {
		t.Fatalf("AddBatch again: %d, %v", n, err)
	}
	if err := AddManifest(ctx, st, gen2, envelope(t, gen2)); err != nil {
		t.Fatal(err)
	}
	if st.puts != before {
		t.Errorf("%d writes for nothing new", st.puts-before)
	}
}

// TestAddRefuses: invalid records, oversized records, foreign manifests
// and bad batch names are refused before anything is written.
func TestAddRefuses(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	big, empty := record("big", "/", t0), SumsOf(nil).SHA1
	for i := range 5000 {
		big.Blocks[gen2] = append(big.Blocks[gen2], fmt.Sprintf("segment-with-a-long-name/%d/0", i))
	}
	for name, err := range map[string]error{
		"bad digest":       Add(ctx, st, Record{Digest: "abc", URL: "/", Time: t0}),
		"bad SHA-256":      Add(ctx, st, Record{Digest: empty, SHA256: strings.Repeat("A", 64), URL: "/", Time: t0}),
		"relative URL":     Add(ctx, st, Record{Digest: empty, URL: "about/", Time: t0}),
		"no time":          Add(ctx, st, Record{Digest: empty, URL: "/"}),
		"bad manifest gen": Add(ctx, st, Record{Digest: empty, URL: "/", Time: t0, Manifest: "G"}),
		"bad block":        Add(ctx, st, Record{Digest: empty, URL: "/", Time: t0, Blocks: map[string][]string{gen1: {"app/x/1"}}}),
		"too large":        Add(ctx, st, big),
		"other manifest":   AddManifest(ctx, st, gen1, envelope(t, gen2)),
		"not a manifest":   AddManifest(ctx, st, gen1, []byte("LZRM junk")),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if !errors.Is(Add(ctx, st, big), ErrTooLarge) {
		t.Error("oversized record: not ErrTooLarge")
	}
	if _, err := AddBatch(ctx, st, "../x", record("a", "/", t0)); err == nil {
		t.Error("batch name ../x accepted")
	}
	if len(st.m) != 0 {
		t.Errorf("refused records wrote %d values", len(st.m))
	}
}

// TestLoadDamage: each kind of damage costs what it damages, counted in
// Skipped; the rest loads.
func TestLoadDamage(t *testing.T) {
	good := record("good", "/", t0)
	line, err := Marshal(&good)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		values  map[string]string
		records int
		skipped int
	}{
		// A line cut short (a crash while appending) is one skipped record.
		{"truncated line", map[string]string{BatchKey(gen2): string(line) + "\n" + string(line[:40])}, 1, 1},
		// Junk between good lines costs that line only.
		{"junk line", map[string]string{BatchKey(gen2): "junk\n" + string(line) + "\n{}\n"}, 1, 2},
		// A record of a future version is skipped, not misread.
		{"unknown version", map[string]string{BatchKey(gen2): strings.Replace(string(line), `"v":1`, `"v":2`, 1)}, 0, 1},
		// A record with a wrong digest form is skipped.
		{"bad digest", map[string]string{BatchKey(gen2): strings.Replace(string(line), good.Digest, strings.ToLower(good.Digest), 1)}, 0, 1},
		// CRLF line ends and blank lines are fine.
		{"crlf", map[string]string{BatchKey(gen2): "\r\n" + string(line) + "\r\n\r\n"}, 1, 0},
		// A manifest stored under another generation's key is skipped.
		{"foreign manifest", map[string]string{ManifestKey(gen1): string(envelope(t, gen2))}, 0, 1},
		// Garbage stored as a manifest is skipped.
		{"bad manifest", map[string]string{ManifestKey(gen1): "LZRM\x01garbage"}, 0, 1},
		// Files that are not history values are ignored.
		{"foreign files", map[string]string{"records/notes.txt": "x", "manifests/README": "x", "other/x.json": string(line)}, 0, 0},
		// A value too large to read is skipped whole.
		{"huge value", map[string]string{BatchKey(gen1): strings.Repeat("x", MaxValueBytes+1), BatchKey(gen2): string(line)}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemStore()
			for k, v := range tt.values {
				st.m[k] = []byte(v)
			}
			ix, err := Load(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if len(ix.Records) != tt.records || ix.Skipped != tt.skipped || ix.Truncated {
				t.Errorf("%d records, %d skipped, truncated %v; want %d, %d", len(ix.Records), ix.Skipped, ix.Truncated, tt.records, tt.skipped)
			}
		})
	}
}

// TestLoadLimits: loading stops at the record and byte limits and says so.
func TestLoadLimits(t *testing.T) {
	old := limits
	defer func() { limits = old }()
	ctx := context.Background()
	st := newMemStore()
	var recs []Record
	for i := range 10 {
		recs = append(recs, record(fmt.Sprint(i), fmt.Sprintf("/p%d", i), t0))
	}
	if _, err := AddBatch(ctx, st, gen2, recs...); err != nil {
		t.Fatal(err)
	}
	limits.records = 4
	ix, err := Load(ctx, st)
	if err != nil || len(ix.Records) != 4 || !ix.Truncated {
		t.Fatalf("record limit: %d records, truncated %v, %v", len(ix.Records), ix.Truncated, err)
	}
	limits = old
	limits.total = 100
	if ix, err = Load(ctx, st); err != nil || len(ix.Records) != 0 || !ix.Truncated {
		t.Fatalf("byte limit: %d records, truncated %v, %v", len(ix.Records), ix.Truncated, err)
	}
}

// TestLoadKeepsEarliest: a digest recorded twice keeps its first time.
func TestLoadKeepsEarliest(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	late, early := record("a", "/", t0.Add(time.Hour)), record("a", "/", t0)
	if err := Add(ctx, st, late); err != nil {
		t.Fatal(err)
	}
	if _, err := AddBatch(ctx, st, gen2, early); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Records[early.Digest]; !got.Time.Equal(t0) {
		t.Errorf("kept %v, want the earliest %v", got.Time, t0)
	}
}

// TestDirKeys: Dir refuses keys that would leave its directory, and a
// missing directory lists as empty.
func TestDirKeys(t *testing.T) {
	ctx := context.Background()
	st := Dir(t.TempDir())
	for _, key := range []string{"../x", "/abs", "a/../../x", ""} {
		if err := st.Put(ctx, key, nil); err == nil {
			t.Errorf("Put(%q) accepted", key)
		}
	}
	if keys, err := st.List(ctx, "records"); len(keys) != 0 || err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("List of a missing dir: %v, %v", keys, err)
	}
	ix, err := Load(ctx, Dir(filepath.Join(string(st), "missing")))
	if err != nil || len(ix.Records) != 0 {
		t.Errorf("Load of a missing dir: %v, %v", ix, err)
	}
}
