package bundle

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// mixedEntries is a small tree exercising every entry type.
func mixedEntries() []Entry {
	return []Entry{
		memDir("www", 0o755),
		memFile("www/index.html", []byte("<!doctype html><title>hi</title>\n"), 0o644),
		memFile("www/"+strings.Repeat("long-", 30)+".txt", randomBytes(9, 700), 0o600),
		memLink("www/current", "/usr/share/javascript/jquery"),
		memDir("www/empty", 0o700),
		memFile("db/dump.sql", bytes.Repeat([]byte("INSERT INTO t VALUES (1);\n"), 100), 0o640),
		memFile("a-b", nil, 0o644),
	}
}

// TestWriteDeterministic checks that the same entries, in any order, give
// the same bytes, and that TarSize, TarSHA256 and the header agree with
// the actual stream.
func TestWriteDeterministic(t *testing.T) {
	entries := mixedEntries()
	first, st := pack(t, entries)
	shuffled := append([]Entry(nil), entries...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	second, _ := pack(t, shuffled)
	if !bytes.Equal(first, second) {
		t.Fatal("same entries in another order gave different payload bytes")
	}
	tarData := unpackTar(t, first)
	size, err := TarSize(entries)
	if err != nil {
		t.Fatal(err)
	}
	if size != int64(len(tarData)) || st.TarSize != size {
		t.Errorf("TarSize %d, Stats.TarSize %d, actual tar stream %d bytes", size, st.TarSize, len(tarData))
	}
	if st.TarSHA256 != sha256.Sum256(tarData) {
		t.Error("TarSHA256 does not match the tar stream")
	}
	if st.PayloadSize != int64(len(first)) || st.Files != 4 || st.Dirs != 2 || st.Symlinks != 1 {
		t.Errorf("stats %+v do not match the %d-byte payload and 4 files, 2 dirs, 1 link", st, len(first))
	}
	if got, _ := readHeader(bytes.NewReader(first)); got != size {
		t.Errorf("header declares %d bytes, want %d", got, size)
	}
}

// TestTarSizeGrid checks the precomputed tar size against the real stream
// at block and PAX boundaries.
func TestTarSizeGrid(t *testing.T) {
	names := []string{"a", strings.Repeat("x", 99), strings.Repeat("x", 100), strings.Repeat("x", 101),
		strings.Repeat("d/", 120) + "f", "ünïcødé"}
	sizes := []int{0, 1, 511, 512, 513, 1024}
	for _, name := range names {
		for _, n := range sizes {
			entries := []Entry{memFile(name, make([]byte, n), 0o644), memLink(name+"l", strings.Repeat("t", n+1))}
			payload, st := pack(t, entries)
			if got := int64(len(unpackTar(t, payload))); got != st.TarSize {
				t.Errorf("name %.20q size %d: computed %d, actual %d", name, n, st.TarSize, got)
			}
		}
	}
}

// TestWriteFormat checks the normative details of the gzip and tar layers.
func TestWriteFormat(t *testing.T) {
	payload, _ := pack(t, mixedEntries())
	if string(payload[:4]) != "LZRP" || payload[4] != 1 || payload[5]|payload[6]|payload[7] != 0 {
		t.Fatalf("bad header % x", payload[:16])
	}
	gz := payload[headerSize:]
	// gzip: ID1 ID2 CM FLG MTIME(4) XFL OS; no FNAME flag, MTIME 0, OS 255.
	if gz[0] != 0x1f || gz[1] != 0x8b || gz[3] != 0 || string(gz[4:8]) != "\x00\x00\x00\x00" || gz[9] != 255 {
		t.Errorf("gzip header % x", gz[:10])
	}
	tr := tar.NewReader(bytes.NewReader(unpackTar(t, payload)))
	var prev string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name <= prev || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.AccessTime.IsZero() || !h.ChangeTime.IsZero() {
			t.Errorf("header %+v: not sorted or has owner/atime/ctime", h)
		}
		if !h.ModTime.Equal(testTime) {
			t.Errorf("%s: mtime %v, want %v", h.Name, h.ModTime, testTime)
		}
		prev = h.Name
	}
}

// TestWriteLevels checks that every level round-trips and bad levels fail.
func TestWriteLevels(t *testing.T) {
	want := unpackTar(t, must(pack(t, mixedEntries())))
	for level := 1; level <= 9; level++ {
		var buf bytes.Buffer
		if _, err := Write(&buf, mixedEntries(), WriteOptions{Level: level}); err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if !bytes.Equal(unpackTar(t, buf.Bytes()), want) {
			t.Errorf("level %d: tar stream differs", level)
		}
	}
	for _, level := range []int{-1, 10} {
		if _, err := Write(io.Discard, nil, WriteOptions{Level: level}); err == nil {
			t.Errorf("level %d accepted", level)
		}
	}
}

func must(payload []byte, _ Stats) []byte { return payload }

// TestEntryValidation lists entries Write and TarSize must refuse.
func TestEntryValidation(t *testing.T) {
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("")), nil }
	cases := []struct {
		name    string
		entries []Entry
		unsafe  bool // error wraps ErrUnsafePath
	}{
		{"empty name", []Entry{memFile("", nil, 0)}, true},
		{"dot", []Entry{memFile(".", nil, 0)}, true},
		{"absolute", []Entry{memFile("/etc/passwd", nil, 0)}, true},
		{"dotdot", []Entry{memFile("a/../../b", nil, 0)}, true},
		{"unclean", []Entry{memFile("a//b", nil, 0)}, true},
		{"trailing slash", []Entry{memDir("a/", 0o755)}, true},
		{"NUL", []Entry{memFile("a\x00b", nil, 0)}, true},
		{"backslash", []Entry{memFile(`a\b`, nil, 0)}, true},
		{"drive", []Entry{memFile("C:x", nil, 0)}, true},
		{"staging prefix", []Entry{memFile(stagingPrefix+"1/x", nil, 0)}, true},
		{"too long", []Entry{memFile(strings.Repeat("a/", maxNameLen), nil, 0)}, true},
		{"duplicate", []Entry{memFile("x", nil, 0), memFile("x", nil, 0)}, false},
		{"dir and file same name", []Entry{memDir("x", 0), memFile("x", nil, 0)}, false},
		{"below a file", []Entry{memFile("x", nil, 0), memFile("x/y", nil, 0)}, false},
		{"below a symlink", []Entry{memLink("x", "."), memFile("x/y", nil, 0)}, false},
		{"no type", []Entry{{Name: "x"}}, false},
		{"type bits in mode", []Entry{{Name: "x", Type: TypeDir, Mode: fs.ModeDir | 0o755}}, false},
		{"negative size", []Entry{{Name: "x", Type: TypeRegular, Size: -1, Open: open}}, false},
		{"no open", []Entry{{Name: "x", Type: TypeRegular}}, false},
		{"dir with size", []Entry{{Name: "x", Type: TypeDir, Size: 1}}, false},
		{"symlink without target", []Entry{{Name: "x", Type: TypeSymlink}}, false},
		{"file with target", []Entry{{Name: "x", Type: TypeRegular, Open: open, Linkname: "y"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TarSize(tc.entries)
			if err == nil {
				t.Fatal("TarSize accepted invalid entries")
			}
			if errors.Is(err, ErrUnsafePath) != tc.unsafe {
				t.Errorf("error %q: ErrUnsafePath = %v, want %v", err, !tc.unsafe, tc.unsafe)
			}
			if _, err := Write(io.Discard, tc.entries, WriteOptions{}); err == nil {
				t.Error("Write accepted invalid entries")
			}
		})
	}
}

// TestWriteFileChanges covers files whose contents do not match their
// declared size (shrinking, growing) or that are replaced on disk.
func TestWriteFileChanges(t *testing.T) {
	lying := func(declared int64, data string) Entry {
		e := memFile("changing.log", []byte(data), 0o644)
		e.Size = declared
		return e
	}
	for _, tc := range []struct {
		name  string
		entry Entry
		want  string
	}{
		{"shrank", lying(10, "12345"), "shrank"},
		{"grew", lying(3, "12345"), "grew"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Write(io.Discard, []Entry{tc.entry}, WriteOptions{})
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "changing.log") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrChanged naming changing.log and saying %q", err, tc.want)
			}
		})
	}
	t.Run("appended on disk", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "access.log")
		os.WriteFile(p, []byte("line 1\n"), 0o644)
		e, err := FileEntry("logs/access.log", p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, []byte("line 1\nline 2\n"), 0o644)
		if _, err := Write(io.Discard, []Entry{e}, WriteOptions{}); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "access.log") {
			t.Errorf("got %v, want ErrChanged naming access.log", err)
		}
	})
	t.Run("replaced on disk", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "data")
		os.WriteFile(p, []byte("old"), 0o644)
		e, err := FileEntry("data", p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "new"), []byte("new"), 0o644)
		os.Rename(filepath.Join(dir, "new"), p)
		if _, err := Write(io.Discard, []Entry{e}, WriteOptions{}); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "replaced") {
			t.Errorf("got %v, want ErrChanged saying the file was replaced", err)
		}
	})
}

// zeroReader yields n zero bytes without allocating.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// TestWriteMemoryBounded packs 256 MiB and checks that allocations stay
// small: Write streams instead of buffering.
func TestWriteMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("packs 256 MiB; skipped with -short")
	}
	const size = 256 << 20
	e := Entry{Name: "big", Type: TypeRegular, Mode: 0o644, ModTime: testTime, Size: size,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(&zeroReader{n: size}), nil }}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Write(io.Discard, []Entry{e}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("Write allocated %d bytes for a %d-byte input", alloc, size)
	}
}

// TestGoldenPayload pins the exact payload bytes of a fixed tree (update
// with -update) and checks that the stored payload still extracts.
func TestGoldenPayload(t *testing.T) {
	golden := filepath.Join("testdata", "golden-v1.lzrp")
	payload, _ := pack(t, mixedEntries())
	if *update {
		if err := os.WriteFile(golden, payload, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(payload, want) {
		t.Errorf("payload differs from %s: the format or its determinism changed", golden)
	}
	out := t.TempDir()
	if _, err := Extract(bytes.NewReader(want), out, ExtractOptions{}); err != nil {
		t.Fatalf("extracting %s: %v", golden, err)
	}
	got, err := os.ReadFile(filepath.Join(out, "db", "dump.sql"))
	if err != nil || !bytes.Equal(got, bytes.Repeat([]byte("INSERT INTO t VALUES (1);\n"), 100)) {
		t.Errorf("db/dump.sql not restored: %v", err)
	}
	if info, err := os.Stat(filepath.Join(out, "www")); err != nil || !info.ModTime().Equal(testTime) || info.Mode().Perm() != 0o755 {
		t.Errorf("www: %v %v", info, err)
	}
}
