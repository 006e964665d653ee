package bundle

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fuzzMaxTarSize bounds what a fuzz input may make Extract write.
const fuzzMaxTarSize = 16 << 20

// extractSeeds are payloads, valid and hostile, to start fuzzing from.
func extractSeeds(t testing.TB) [][]byte {
	good := validPayload(t)
	return [][]byte{
		good,
		must(pack(t, mixedEntries())),
		good[:len(good)/2],
		hostile(t, symlinkHdr("l", "/tmp"), reg("l/evil", "x")),
		hostile(t, reg("f", "x"), hardlinkHdr("h", "f"), dirHdr("d/"), reg("d/g", "y")),
		hostile(t, reg("../evil", "x")),
		hostile(t, dirHdr("existing-link/"), reg("existing-link/x", "x")),
		hostile(t, reg("keep.txt", "overwrite")),
	}
}

// checkExtractSafety runs Extract on payload in a prepared target and
// checks the safety properties: nothing outside the target, no staging
// leftovers, and an unchanged target on error.
func checkExtractSafety(t *testing.T, payload []byte, force bool) {
	dir, outside := damageTarget(t)
	before := listing(t, dir)
	_, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{MaxTarSize: fuzzMaxTarSize, Force: force})
	checkOutside(t, dir, outside)
	after := listing(t, dir)
	for name := range after {
		if strings.HasPrefix(name, stagingPrefix) {
			t.Fatalf("staging directory %s left behind (err %v)", name, err)
		}
	}
	if err != nil {
		if d := diffSnapshots(before, after); d != "" {
			t.Fatalf("failed extraction (%v) changed the target:\n%s", err, d)
		}
	}
}

// FuzzExtract feeds arbitrary bytes to Extract: it must never panic, never
// create anything outside the target directory, and leave the target
// unchanged when it fails.
func FuzzExtract(f *testing.F) {
	for _, seed := range extractSeeds(f) {
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, payload []byte, force bool) {
		checkExtractSafety(t, payload, force)
	})
}

// FuzzExtractEntries is FuzzExtract one layer down: the fuzzer chooses
// the names, types and link targets of three tar entries, which are
// written with valid checksums, gzip and header, so that the path-safety
// logic (not the tar checksum check) is what gets exercised.
func FuzzExtractEntries(f *testing.F) {
	f.Add("l", byte(tar.TypeSymlink), "/tmp", "l/evil", byte(tar.TypeReg), "", "x", byte(tar.TypeReg), "", false)
	f.Add("f", byte(tar.TypeReg), "", "h", byte(tar.TypeLink), "f", "d/", byte(tar.TypeDir), "", false)
	f.Add("existing-link/", byte(tar.TypeDir), "", "existing-link/x", byte(tar.TypeReg), "", "keep.txt", byte(tar.TypeReg), "", true)
	f.Add("a", byte(tar.TypeSymlink), "..", "a/b", byte(tar.TypeDir), "", "../x", byte(tar.TypeLink), "a", true)
	f.Fuzz(func(t *testing.T, n1 string, t1 byte, l1, n2 string, t2 byte, l2, n3 string, t3 byte, l3 string, force bool) {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, e := range []struct {
			name, link string
			flag       byte
		}{{n1, l1, t1}, {n2, l2, t2}, {n3, l3, t3}} {
			h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.flag, Mode: 0o644, Format: tar.FormatPAX}
			if e.flag == tar.TypeReg {
				h.Size = 1
			}
			if tw.WriteHeader(h) != nil {
				t.Skip()
			}
			if e.flag == tar.TypeReg {
				tw.Write([]byte{'x'})
			}
		}
		if tw.Close() != nil {
			t.Skip()
		}
		checkExtractSafety(t, wrapTar(buf.Bytes(), int64(buf.Len())), force)
	})
}

// FuzzTarRoundTrip checks, for arbitrary names, contents, modes, times and
// link targets, that Write is deterministic, that TarSize is exact and
// that Extract restores everything.
func FuzzTarRoundTrip(f *testing.F) {
	f.Add("index.html", []byte("<p>hi</p>"), uint16(0o644), int64(1700000000), uint32(123456789), "../shared/x")
	f.Add(strings.Repeat("long/", 40)+"name", make([]byte, 70000), uint16(0o4755), int64(0), uint32(1), "/etc/passwd")
	f.Add("ünï/cødé 🎉", []byte{0}, uint16(0o1777), int64(4000000000), uint32(999999999), ".")
	f.Fuzz(func(t *testing.T, name string, data []byte, mode uint16, sec int64, nsec uint32, target string) {
		mtime := time.Unix(int64(uint64(sec)%(1<<32)), int64(nsec%1e9))
		file := memFile(name, data, fileMode(int64(mode)))
		file.ModTime = mtime
		entries := []Entry{file, memDir("zz-dir", 0o750)}
		if target != "" {
			entries = append(entries, memLink("zz-link", target))
		}
		if _, err := TarSize(entries); err != nil || !creatable(name) {
			t.Skip()
		}
		p1, st := pack(t, entries)
		p2, _ := pack(t, entries)
		if !bytes.Equal(p1, p2) {
			t.Fatal("two writes of the same entries differ")
		}
		if n := len(unpackTar(t, p1)); int64(n) != st.TarSize {
			t.Fatalf("tar stream is %d bytes, TarSize said %d", n, st.TarSize)
		}
		out := t.TempDir()
		if _, err := Extract(bytes.NewReader(p1), out, ExtractOptions{KeepSetuid: true}); err != nil {
			t.Fatalf("Extract: %v", err)
		}
		checkRestoredFile(t, filepath.Join(out, filepath.FromSlash(name)), file)
		if target != "" {
			if got, err := os.Readlink(filepath.Join(out, "zz-link")); err != nil || got != target {
				t.Errorf("link target %q (%v), want %q", got, err, target)
			}
		}
	})
}

// creatable reports whether every component of name fits the usual
// 255-byte file system limit.
func creatable(name string) bool {
	for _, c := range strings.Split(name, "/") {
		if len(c) > 255 {
			return false
		}
	}
	return true
}

func checkRestoredFile(t *testing.T, p string, want Entry) {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	wantData := entryData(t, want)
	if !bytes.Equal(got, wantData) || info.Mode()&(modeBits|fs.ModeType) != want.Mode || !info.ModTime().Equal(want.ModTime) {
		t.Errorf("restored %v %v %d bytes, want %v %v %d bytes", info.Mode(), info.ModTime(), len(got), want.Mode, want.ModTime, want.Size)
	}
}
