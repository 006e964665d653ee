package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// manyDirsEntries is a tree with more directories than maxOpenDirs,
// files spanning several write chunks (random, and zeros that become
// holes), setuid bits to clear, symbolic and hard links.
func manyDirsEntries() []Entry {
	var entries []Entry
	for d := range maxOpenDirs + 20 {
		dir := fmt.Sprintf("d%03d", d)
		entries = append(entries, memDir(dir, 0o750))
		for f := range 3 {
			entries = append(entries, memFile(fmt.Sprintf("%s/f%d", dir, f), randomBytes(uint64(d*3+f), 100*d+f), 0o644))
		}
	}
	entries = append(entries,
		memFile("deep/a/b/c/d/e/f/g/h/leaf", []byte("leaf"), 0o600),
		memFile("large.bin", randomBytes(99, 3*writeChunk+5), 0o644),
		memFile("sparse.img", append(make([]byte, 2*writeChunk), 'x'), 0o644),
		memFile("su", []byte("s"), 0o755|fs.ModeSetuid),
		memLink("zlink", "large.bin"),
	)
	return entries
}

// TestExtractSameForAnyWriters extracts one payload with 1, 2 and 8
// writers: the trees and the reports must be identical.
func TestExtractSameForAnyWriters(t *testing.T) {
	entries := manyDirsEntries()
	payload, _ := pack(t, entries)
	tarData := unpackTar(t, payload)
	// A hard link to a file written in several chunks, appended by hand.
	withLink := hostile(t, append(tarEntriesOf(t, tarData), hardlinkHdr("zz-hard", "large.bin"))...)
	var first map[string]string
	var firstRep Report
	for _, n := range []int{1, 2, 8} {
		out := t.TempDir()
		rep, err := Extract(bytes.NewReader(withLink), out, ExtractOptions{Writers: n})
		if err != nil {
			t.Fatalf("writers=%d: %v", n, err)
		}
		snap := snapshot(t, out)
		for name := range snap {
			// "." and the directories only implied by deep/…/leaf
			// have the time they were created at.
			if name == "." || strings.HasPrefix(name, "deep") && !strings.HasSuffix(name, "leaf") {
				delete(snap, name)
			}
		}
		if first == nil {
			first, firstRep = snap, rep
			checkRestoredFile(t, filepath.Join(out, "large.bin"), entries[len(entries)-4])
			continue
		}
		if d := diffSnapshots(first, snap); d != "" {
			t.Errorf("writers=%d: tree differs from writers=1:\n%s", n, d)
		}
		if !reflect.DeepEqual(rep, firstRep) {
			t.Errorf("writers=%d: report %+v, writers=1 gave %+v", n, rep, firstRep)
		}
	}
	if firstRep.Files != len(entries)-maxOpenDirs-20-1 || firstRep.HardLinks != 1 || len(firstRep.Problems) != 1 {
		t.Errorf("report %+v", firstRep)
	}
}

// tarEntriesOf reads a tar stream back into hand-made entries.
func tarEntriesOf(t testing.TB, tarData []byte) []tarEntry {
	t.Helper()
	var out []tarEntry
	tr := tar.NewReader(bytes.NewReader(tarData))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		hdr.Size = 0 // rawTar sets it from the data
		out = append(out, tarEntry{hdr: *hdr, data: string(data)})
	}
}

// TestExtractReportsFirstFailingFile: files that only fail when a writer
// creates them (a name component over the file system's 255 bytes) make
// the extraction fail with the first such file in tar order, however
// many writers raced, and leave the target unchanged; a hostile entry
// before them wins likewise.
func TestExtractReportsFirstFailingFile(t *testing.T) {
	long := func(i int) string { return fmt.Sprintf("f%03d-%s", i, strings.Repeat("x", 300)) }
	var entries []tarEntry
	for i := range 120 {
		name := fmt.Sprintf("f%03d", i)
		if i == 40 || i == 41 {
			name = long(i)
		}
		data := "small"
		if i%7 == 0 {
			data = string(randomBytes(uint64(i), writeChunk+i))
		}
		entries = append(entries, reg(name, data))
	}
	failing := hostile(t, entries...)
	dup := append(append([]tarEntry{}, entries[:20]...), reg("f000", "again"))
	hostileFirst := hostile(t, append(dup, entries[20:]...)...)
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
		is      error
	}{
		{"first of two failing files", failing, long(40), syscall.ENAMETOOLONG},
		{"duplicate before them", hostileFirst, `duplicate entry "f000"`, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 8} {
				for range 5 {
					dir, outside := damageTarget(t)
					before := listing(t, dir)
					_, err := Extract(bytes.NewReader(tc.payload), dir, ExtractOptions{Writers: n})
					if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("writers=%d: got %v, want %v about %.20q", n, err, tc.is, tc.want)
					}
					if d := diffSnapshots(before, listing(t, dir)); d != "" {
						t.Fatalf("target changed:\n%s", d)
					}
					checkOutside(t, dir, outside)
				}
			}
		})
	}
}

// TestExtractTruncatedInLargeFile cuts a payload in the middle of a file
// spanning many write chunks: ErrTruncated, nothing moved.
func TestExtractTruncatedInLargeFile(t *testing.T) {
	payload, _ := pack(t, []Entry{memFile("a", []byte("a"), 0o644), memFile("big", randomBytes(5, 8*writeChunk), 0o644)})
	dir, outside := damageTarget(t)
	before := listing(t, dir)
	_, err := Extract(bytes.NewReader(payload[:len(payload)*3/5]), dir, ExtractOptions{})
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want ErrTruncated", err)
	}
	if d := diffSnapshots(before, listing(t, dir)); d != "" {
		t.Errorf("target changed:\n%s", d)
	}
	checkOutside(t, dir, outside)
}

// TestExtractClosesDirectoryHandles: no descriptor outlives Extract,
// whether it succeeds or fails.
func TestExtractClosesDirectoryHandles(t *testing.T) {
	good, _ := pack(t, manyDirsEntries())
	bad := good[:len(good)/2]
	for _, payload := range [][]byte{good, bad} {
		before := openFDs(t)
		Extract(bytes.NewReader(payload), t.TempDir(), ExtractOptions{})
		if after := openFDs(t); after != before {
			t.Errorf("%d descriptors open before Extract, %d after", before, after)
		}
	}
}

// openFDs counts the process's open file descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	list, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(list)
}
