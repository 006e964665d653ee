package bundle

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// validPayload is a small well-formed payload to damage.
func validPayload(t testing.TB) []byte {
	payload, _ := pack(t, []Entry{memDir("app", 0o755), memFile("app/index.html", []byte("<h1>hello</h1>"), 0o644)})
	return payload
}

// withHeader returns a copy of payload with header byte i set to v.
func withHeader(payload []byte, i int, v byte) []byte {
	p := bytes.Clone(payload)
	p[i] = v
	return p
}

// withTarSize returns a copy of payload declaring another tar size.
func withTarSize(payload []byte, size uint64) []byte {
	p := bytes.Clone(payload)
	binary.BigEndian.PutUint64(p[8:16], size)
	return p
}

// gzipOf compresses data at the fastest level.
func gzipOf(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// TestExtractDamage is the table of hostile or broken payloads. Each case
// says which sentinel error it must produce; every case must also leave
// the target directory exactly as it was.
func TestExtractDamage(t *testing.T) {
	good := validPayload(t)
	tarData := unpackTar(t, good)
	declared := int64(len(tarData))
	cases := []struct {
		name    string
		payload []byte
		opts    ExtractOptions
		want    error
		mention string // the error message must contain this
	}{
		// Header damage.
		{"empty input", nil, ExtractOptions{}, ErrNotPayload, ""},
		{"short header", good[:10], ExtractOptions{}, ErrNotPayload, ""},
		{"bad magic", withHeader(good, 0, 'X'), ExtractOptions{}, ErrNotPayload, "magic"},
		{"reserved byte set", withHeader(good, 6, 1), ExtractOptions{}, ErrNotPayload, "reserved"},
		{"version 2", withHeader(good, 4, 2), ExtractOptions{}, ErrUnknownVersion,
			"payload format version 2 is newer than this program understands (1)"},
		{"version 0", withHeader(good, 4, 0), ExtractOptions{}, ErrUnknownVersion, "version 0"},
		// Size limits.
		{"larger than MaxTarSize", good, ExtractOptions{MaxTarSize: declared - 512}, ErrTooLarge, ""},
		{"size beyond int64", withTarSize(good, 1<<63), ExtractOptions{}, ErrTooLarge, ""},
		{"size not a tar length", withTarSize(good, uint64(declared)+1), ExtractOptions{}, ErrCorrupt, ""},
		{"declared too small", withTarSize(good, uint64(declared)-512), ExtractOptions{}, ErrBomb,
			"decompressed data exceeds the declared"},
		{"declared too large", withTarSize(good, uint64(declared)+512), ExtractOptions{}, ErrTruncated, ""},
		// Compressed stream damage.
		{"cut in the middle", good[:len(good)/2], ExtractOptions{}, ErrTruncated, ""},
		{"cut before the trailer", good[:len(good)-4], ExtractOptions{}, ErrTruncated, ""},
		{"only the header", good[:headerSize], ExtractOptions{}, ErrTruncated, ""},
		{"not gzip", append(bytes.Clone(good[:headerSize]), tarData...), ExtractOptions{}, ErrCorrupt, ""},
		{"checksum mismatch", withHeader(good, len(good)-5, good[len(good)-5]^1), ExtractOptions{}, ErrCorrupt, ""},
		{"garbage after gzip", append(bytes.Clone(good), "not another gzip member"...), ExtractOptions{}, ErrCorrupt, ""},
		{"short junk after gzip", append(bytes.Clone(good), "junk"...), ExtractOptions{}, ErrTruncated, "trailing junk"},
		{"zeros after gzip", append(bytes.Clone(good), make([]byte, 512)...), ExtractOptions{}, ErrCorrupt, ""},
		{"raw type flag garbage", wrapTar(append(rawBlock("x", 'Z', 0), make([]byte, 1024)...), 1536), ExtractOptions{}, ErrCorrupt, "unsupported"},
		{"tar garbage", wrapTar(bytes.Repeat([]byte{'x'}, 1024), 1024), ExtractOptions{}, ErrCorrupt, ""},
		// Unsafe names.
		{"absolute name", hostile(t, reg("/etc/cron.d/evil", "x")), ExtractOptions{}, ErrUnsafePath, "/etc/cron.d/evil"},
		{"dotdot name", hostile(t, reg("../evil", "x")), ExtractOptions{}, ErrUnsafePath, "../evil"},
		{"dotdot inside", hostile(t, reg("a/../../evil", "x")), ExtractOptions{}, ErrUnsafePath, "a/../../evil"},
		{"unclean name", hostile(t, reg("a/./b", "x")), ExtractOptions{}, ErrUnsafePath, "a/./b"},
		{"dot slash", hostile(t, reg("./a", "x")), ExtractOptions{}, ErrUnsafePath, "./a"},
		{"empty name", hostile(t, dirHdr("/")), ExtractOptions{}, ErrUnsafePath, ""},
		{"backslash traversal", hostile(t, reg(`..\..\evil`, "x")), ExtractOptions{}, ErrUnsafePath, "evil"},
		{"drive letter", hostile(t, reg(`C:\Windows\evil`, "x")), ExtractOptions{}, ErrUnsafePath, "evil"},
		{"drive relative", hostile(t, reg("c:evil", "x")), ExtractOptions{}, ErrUnsafePath, "c:evil"},
		{"UNC path", hostile(t, reg(`\\server\share\evil`, "x")), ExtractOptions{}, ErrUnsafePath, "evil"},
		// archive/tar itself rejects NUL bytes in PAX paths (USTAR fields end
		// at the first NUL), so this is a corrupt header, not a name.
		{"NUL in name", nulNamePayload(), ExtractOptions{}, ErrCorrupt, ""},
		{"staging name", hostile(t, reg(stagingPrefix+"x/f", "x")), ExtractOptions{}, ErrUnsafePath, stagingPrefix},
		{"device with unsafe name", hostile(t, tarEntry{hdr: tarHeaderOf("/dev/evil", tar.TypeChar)}), ExtractOptions{}, ErrUnsafePath, "/dev/evil"},
		// Duplicates and type conflicts.
		{"duplicate file", hostile(t, reg("a", "1"), reg("a", "2")), ExtractOptions{}, ErrCorrupt, "duplicate"},
		{"duplicate dir", hostile(t, dirHdr("d/"), dirHdr("d/")), ExtractOptions{}, ErrCorrupt, "duplicate"},
		{"file then dir", hostile(t, reg("a", "1"), dirHdr("a/")), ExtractOptions{}, ErrCorrupt, "duplicate"},
		{"below a file", hostile(t, reg("a", "1"), reg("a/b", "2")), ExtractOptions{}, ErrCorrupt, "not a directory"},
		{"unknown type", hostile(t, tarEntry{hdr: tarHeaderOf("v", 'V')}), ExtractOptions{}, ErrCorrupt, "unsupported"},
		{"symlink without target", hostile(t, symlinkHdr("l", "")), ExtractOptions{}, ErrCorrupt, "empty target"},
		// Writing through symbolic links.
		{"through archive symlink", hostile(t, symlinkHdr("l", "/tmp"), reg("l/evil", "x")), ExtractOptions{}, ErrThroughSymlink, "l/evil"},
		{"through relative symlink", hostile(t, symlinkHdr("l", "."), reg("l/l/x", "x")), ExtractOptions{}, ErrThroughSymlink, "l/l/x"},
		{"dir through symlink", hostile(t, symlinkHdr("l", ".."), dirHdr("l/d/")), ExtractOptions{}, ErrThroughSymlink, "l/d"},
		{"hard link through symlink", hostile(t, reg("f", "x"), symlinkHdr("l", "/"), hardlinkHdr("l/f", "f")), ExtractOptions{}, ErrThroughSymlink, "l/f"},
		{"existing symlink in dir, force", hostile(t, dirHdr("existing-link/"), reg("existing-link/evil", "x")), ExtractOptions{Force: true}, ErrThroughSymlink, "existing-link"},
		{"existing symlink in dir", hostile(t, dirHdr("existing-link/"), reg("existing-link/evil", "x")), ExtractOptions{}, ErrExists, "existing-link"},
		// Hard links.
		{"hard link to nothing", hostile(t, hardlinkHdr("h", "missing")), ExtractOptions{}, ErrUnsafePath, "missing"},
		{"hard link forward", hostile(t, hardlinkHdr("h", "f"), reg("f", "x")), ExtractOptions{}, ErrUnsafePath, "h"},
		{"hard link absolute", hostile(t, hardlinkHdr("h", "/etc/passwd")), ExtractOptions{}, ErrUnsafePath, "/etc/passwd"},
		{"hard link dotdot", hostile(t, hardlinkHdr("h", "../outside")), ExtractOptions{}, ErrUnsafePath, "../outside"},
		{"hard link to dir", hostile(t, dirHdr("d/"), hardlinkHdr("h", "d")), ExtractOptions{}, ErrUnsafePath, "h"},
		{"hard link to symlink", hostile(t, symlinkHdr("s", "/etc/passwd"), hardlinkHdr("h", "s")), ExtractOptions{}, ErrUnsafePath, "h"},
		{"hard link to existing", hostile(t, hardlinkHdr("h", "keep.txt")), ExtractOptions{}, ErrUnsafePath, "keep.txt"},
		// Conflicts with what the target directory holds.
		{"existing file", hostile(t, reg("keep.txt", "new")), ExtractOptions{}, ErrExists, "keep.txt"},
		{"existing dir replaced by file", hostile(t, reg("keep-dir", "x")), ExtractOptions{Force: true}, ErrExists, "keep-dir"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := damageTarget(t)
			before := listing(t, dir)
			_, err := Extract(bytes.NewReader(tc.payload), dir, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not mention %q", err, tc.mention)
			}
			if d := diffSnapshots(before, listing(t, dir)); d != "" {
				t.Errorf("target directory changed:\n%s", d)
			}
			checkOutside(t, dir, outside)
		})
	}
}

// damageTarget returns a target directory (alone in its parent) holding a
// file, a directory and a symbolic link "existing-link" to an empty
// directory outside, whose path it also returns.
func damageTarget(t testing.TB) (dir, outside string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "target")
	makeTree(t, dir, []spec{sFile("keep.txt", []byte("keep"), 0o644), sDir("keep-dir", 0o755)})
	outside = filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "existing-link")); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

// checkOutside fails if anything but dir appeared in dir's parent, or if
// anything was written into the outside directory.
func checkOutside(t testing.TB, dir, outside string) {
	t.Helper()
	list, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name() != filepath.Base(dir) {
		t.Errorf("parent of the target holds %v", list)
	}
	if inside, err := os.ReadDir(outside); err != nil || len(inside) != 0 {
		t.Errorf("something was written through existing-link: %v %v", inside, err)
	}
}

// rawBlock builds a USTAR header block by hand, so that any type flag and
// name can be used, with a valid checksum.
func rawBlock(name string, flag byte, size int) []byte {
	b := make([]byte, 512)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], "00000000000\x00")
	b[156] = flag
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// padBlock pads data to whole 512-byte blocks.
func padBlock(data string) []byte {
	b := []byte(data)
	return append(b, make([]byte, (512-len(b)%512)%512)...)
}

// nulNamePayload smuggles a NUL byte into a name through a PAX path
// record (the USTAR fields cannot carry one).
func nulNamePayload() []byte {
	rec := "12 path=a\x00b\n"
	var tarData []byte
	tarData = append(tarData, rawBlock("PaxHeaders/c", tar.TypeXHeader, len(rec))...)
	tarData = append(tarData, padBlock(rec)...)
	tarData = append(tarData, rawBlock("c", tar.TypeReg, 0)...)
	tarData = append(tarData, make([]byte, 1024)...)
	return wrapTar(tarData, int64(len(tarData)))
}

// TestExtractBombStopsEarly checks that a payload declaring 1 KiB but
// expanding to 64 MiB is rejected after reading only a little input.
func TestExtractBombStopsEarly(t *testing.T) {
	var payload bytes.Buffer
	payload.Write(appendHeader(nil, 1024))
	payload.Write(gzipOf(make([]byte, 64<<20)))
	cr := &countingReader{r: bytes.NewReader(payload.Bytes())}
	_, err := Extract(cr, t.TempDir(), ExtractOptions{})
	if !errors.Is(err, ErrBomb) || !strings.Contains(err.Error(), "decompressed data exceeds the declared 1024 bytes") {
		t.Fatalf("got %v, want ErrBomb", err)
	}
	if cr.n > 64<<10 {
		t.Errorf("read %d of %d compressed bytes before stopping", cr.n, payload.Len())
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestExtractMultiMember accepts a gzip stream split into several members.
func TestExtractMultiMember(t *testing.T) {
	tarData := unpackTar(t, validPayload(t))
	var payload bytes.Buffer
	payload.Write(appendHeader(nil, int64(len(tarData))))
	payload.Write(gzipOf(tarData[:700]))
	payload.Write(gzipOf(tarData[700:]))
	out := t.TempDir()
	if _, err := Extract(&payload, out, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(out, "app", "index.html")); err != nil || string(data) != "<h1>hello</h1>" {
		t.Errorf("index.html: %q %v", data, err)
	}
}

// TestExtractAllowedLinks restores symbolic links with absolute and
// escaping targets verbatim, without following them.
func TestExtractAllowedLinks(t *testing.T) {
	payload := hostile(t, symlinkHdr("abs", "/etc/passwd"), symlinkHdr("up", "../../outside"), symlinkHdr("dot", "."), reg("f", "x"), hardlinkHdr("h", "f"))
	dir, outside := damageTarget(t)
	if _, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"abs": "/etc/passwd", "up": "../../outside", "dot": "."} {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != want {
			t.Errorf("%s -> %q (%v), want %q", name, got, err, want)
		}
	}
	checkOutside(t, dir, outside)
}

// TestExtractMergesDirectories: without Force, an existing directory is
// merged into when none of its names conflict; one conflict anywhere
// fails the whole extraction before anything moves.
func TestExtractMergesDirectories(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "app"), 0o755)
	os.WriteFile(filepath.Join(dir, "app", "local.txt"), []byte("mine"), 0o644)
	payload := hostile(t, dirHdr("app/"), reg("app/index.php", "<?php"), reg("top.txt", "t"))
	if _, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"app/local.txt": "mine", "app/index.php": "<?php", "top.txt": "t"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	again := hostile(t, dirHdr("app/"), reg("app/new.txt", "n"), reg("app/local.txt", "theirs"))
	if _, err := Extract(bytes.NewReader(again), dir, ExtractOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "app", "new.txt")); err == nil {
		t.Fatal("a conflicting extraction moved something")
	}
}

// TestExtractForce covers replacing files and merging directories.
func TestExtractForce(t *testing.T) {
	payload := hostile(t, reg("keep.txt", "replaced"), dirHdr("keep-dir/"), reg("keep-dir/new", "n"))
	dir, outside := damageTarget(t)
	os.WriteFile(filepath.Join(dir, "keep-dir", "old"), []byte("o"), 0o644)
	if _, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"keep.txt": "replaced", "keep-dir/new": "n", "keep-dir/old": "o"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "keep-dir")); err != nil || !info.ModTime().Equal(testTime) {
		t.Errorf("merged directory time not restored: %v %v", info.ModTime(), err)
	}
	checkOutside(t, dir, outside)
}

// TestExtractForceReplacesSymlink replaces an existing symbolic link by a
// file without touching the link's target.
func TestExtractForceReplacesSymlink(t *testing.T) {
	dir, outside := damageTarget(t)
	payload := hostile(t, reg("existing-link", "now a file"))
	if _, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "existing-link")); err != nil || string(data) != "now a file" {
		t.Errorf("existing-link = %q %v", data, err)
	}
	checkOutside(t, dir, outside)
}

// TestExtractTargetErrors covers unusable target directories.
func TestExtractTargetErrors(t *testing.T) {
	good := validPayload(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		if _, err := Extract(bytes.NewReader(good), dir, ExtractOptions{}); err == nil {
			t.Errorf("extracting into %s succeeded", dir)
		}
	}
	if _, err := Extract(bytes.NewReader(good), t.TempDir(), ExtractOptions{MaxTarSize: -1}); err == nil {
		t.Error("negative MaxTarSize accepted")
	}
}
