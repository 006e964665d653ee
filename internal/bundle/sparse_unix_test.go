//go:build unix

package bundle

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// allocated returns the bytes of disk actually allocated to the file.
func allocated(t testing.TB, p string) int64 {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Blocks * 512
}

// supportsHoles reports whether the temporary file system keeps a
// truncated-up file unallocated.
func supportsHoles(t testing.TB) bool {
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(16 << 20); err != nil {
		t.Fatal(err)
	}
	return allocated(t, p) == 0
}

// TestWriteSparseGrid writes zero and data chunks at chunk boundaries and
// checks contents and that whole zero chunks are holes.
func TestWriteSparseGrid(t *testing.T) {
	data := randomBytes(11, sparseChunk)
	zero := make([]byte, sparseChunk)
	holes := supportsHoles(t)
	cases := []struct {
		name    string
		parts   [][]byte
		written int // chunks that must be written, not skipped
	}{
		{"empty", nil, 0},
		{"zeros only", [][]byte{zero, zero, zero}, 0},
		{"zeros, partial zero tail", [][]byte{zero, zero[:100]}, 1},
		{"data, zeros, data", [][]byte{data, zero, zero, zero, data[:77]}, 2},
		{"unaligned zero run", [][]byte{data[:10], zero, zero, data[:10]}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.Join(tc.parts, nil)
			p := filepath.Join(t.TempDir(), "f")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			n, err := writeSparse(f, bytes.NewReader(want), int64(len(want)), make([]byte, sparseChunk))
			f.Close()
			if err != nil || n != int64(len(want)) {
				t.Fatalf("writeSparse: %d, %v", n, err)
			}
			got, _ := os.ReadFile(p)
			if !bytes.Equal(got, want) {
				t.Fatal("contents differ")
			}
			// Aligned zero chunks must be holes: at most the chunks
			// holding data (or a partial tail) may be allocated.
			if a, max := allocated(t, p), int64(tc.written)*sparseChunk; holes && a > max {
				t.Errorf("%d bytes allocated, want at most %d", a, max)
			}
		})
	}
	t.Run("short input", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := writeSparse(f, bytes.NewReader(data[:10]), 20, make([]byte, sparseChunk)); err == nil {
			t.Error("short input accepted")
		}
	})
}

// TestSparse5GiB round-trips a 5 GiB file that is almost all holes and
// checks that the extracted copy is sparse too.
func TestSparse5GiB(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("packs 5 GiB; skipped with -short and under the race detector")
	}
	const size = 5 << 30
	src := filepath.Join(t.TempDir(), "zeros.img")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	marks := map[int64]byte{0: 'a', 1<<30 + 3: 'b', size - 1: 'z'}
	for off, c := range marks {
		f.WriteAt([]byte{c}, off)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !supportsHoles(t) {
		t.Skip("the temporary file system does not support sparse files")
	}
	e, err := FileEntry("zeros.img", src)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := Write(pw, []Entry{e}, WriteOptions{})
		pw.CloseWithError(err)
	}()
	out := t.TempDir()
	rep, err := Extract(pr, out, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(out, "zeros.img")
	if rep.Bytes != size || allocated(t, got) > 4<<20 {
		t.Errorf("extracted %d bytes using %d bytes of disk, want %d bytes in a sparse file", rep.Bytes, allocated(t, got), int64(size))
	}
	g, err := os.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for off, c := range marks {
		b := []byte{0}
		if _, err := g.ReadAt(b, off); err != nil || b[0] != c {
			t.Errorf("byte at %d = %q (%v), want %q", off, b[0], err, c)
		}
	}
}
