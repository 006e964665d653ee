package bundle

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// testTime is a fixed modification time with nanoseconds.
var testTime = time.Unix(1700000000, 123456789)

// memFile returns a regular-file entry backed by data.
func memFile(name string, data []byte, mode fs.FileMode) Entry {
	return Entry{
		Name: name, Type: TypeRegular, Mode: mode, ModTime: testTime, Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

func memDir(name string, mode fs.FileMode) Entry {
	return Entry{Name: name, Type: TypeDir, Mode: mode, ModTime: testTime}
}

func memLink(name, target string) Entry {
	return Entry{Name: name, Type: TypeSymlink, Mode: 0o777, ModTime: testTime, Linkname: target}
}

// pack writes entries into a payload with the default options.
func pack(t testing.TB, entries []Entry) ([]byte, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := Write(&buf, entries, WriteOptions{})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes(), st
}

// unpackTar returns the uncompressed tar stream of a payload.
func unpackTar(t testing.TB, payload []byte) []byte {
	t.Helper()
	out, err := gunzip(payload[headerSize:])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gunzip decompresses a whole gzip stream.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// entryData reads the contents of a regular-file entry.
func entryData(t testing.TB, e Entry) []byte {
	t.Helper()
	rc, err := e.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// wrapTar makes a payload of a raw tar stream, declaring size bytes.
func wrapTar(tarData []byte, size int64) []byte {
	var buf bytes.Buffer
	buf.Write(appendHeader(nil, size))
	zw, _ := gzip.NewWriterLevel(&buf, 1)
	zw.Write(tarData)
	zw.Close()
	return buf.Bytes()
}

// tarEntry is one entry of a hand-made (possibly hostile) tar stream.
type tarEntry struct {
	hdr  tar.Header
	data string
}

// rawTar builds a tar stream with archive/tar directly, bypassing this
// package's validation.
func rawTar(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = int64(len(e.data))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("tar header %q: %v", h.Name, err)
		}
		if _, err := io.WriteString(tw, e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostile builds a payload from hand-made tar entries.
func hostile(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	data := rawTar(t, entries...)
	return wrapTar(data, int64(len(data)))
}

// tarHeaderOf returns a header-only entry of the given type flag.
func tarHeaderOf(name string, flag byte) tar.Header {
	return tar.Header{Name: name, Typeflag: flag, Mode: 0o644, ModTime: testTime}
}

func reg(name, data string) tarEntry {
	return tarEntry{hdr: tar.Header{Name: name, Typeflag: tar.TypeReg, ModTime: testTime}, data: data}
}

func dirHdr(name string) tarEntry {
	return tarEntry{hdr: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: testTime}}
}

func symlinkHdr(name, target string) tarEntry {
	return tarEntry{hdr: tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target, ModTime: testTime}}
}

func hardlinkHdr(name, target string) tarEntry {
	return tarEntry{hdr: tar.Header{Name: name, Typeflag: tar.TypeLink, Linkname: target, ModTime: testTime}}
}

// snapshot describes every object below root (root itself as ".") by
// type, mode, modification time, contents digest and link target.
// Symbolic link times are left out: Extract does not restore them.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = describe(t, p, info)
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", root, err)
	}
	return out
}

func describe(t testing.TB, p string, info fs.FileInfo) string {
	mode := info.Mode()
	mtime := info.ModTime().UTC().Format(time.RFC3339Nano)
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			t.Fatal(err)
		}
		return "symlink -> " + target
	case mode.IsRegular():
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		return fmt.Sprintf("file %v %s %d %s", mode, mtime, len(data), hex.EncodeToString(sum[:8]))
	}
	return fmt.Sprintf("%v %s", mode, mtime)
}

// listing describes dir without modification times of dir itself, for
// "unchanged" checks after failed extractions.
func listing(t testing.TB, dir string) map[string]string {
	t.Helper()
	snap := snapshot(t, dir)
	delete(snap, ".")
	return snap
}

// diffSnapshots returns a readable list of differences, or "".
func diffSnapshots(want, got map[string]string) string {
	var diffs []string
	for name, w := range want {
		if g, ok := got[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing %s (%s)", name, w))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s: got %s, want %s", name, g, w))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("unexpected %s (%s)", name, g))
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "\n")
}

// randomBytes returns n deterministic pseudo-random bytes.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}
