package warc

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"
)

// readParallel reads data with a parallel reader and returns what it read
// and how many members it took from the workers.
func readParallel(t testing.TB, data []byte, chunkSize int64, workers int) ([]got, int) {
	t.Helper()
	rd := newReaderAt(bytes.NewReader(data), int64(len(data)), workers, chunkSize)
	defer rd.Close()
	out, _, err := readWith(rd)
	if err != nil {
		t.Fatalf("Next after %d records: %v", len(out), err)
	}
	return out, rd.gz.pf.hits
}

func TestParallelTakesEveryMember(t *testing.T) {
	// An intact per-record gzip file: every member (warcinfo and 40
	// responses) is inflated by a worker, none by the reader itself.
	sizes := make([]int, 40)
	for i := range sizes {
		sizes[i] = 100 + i*997
	}
	data := writeSample(t, true, sizes)
	want, _ := readAll(t, data) // also checks the parallel reads equal it
	for _, cs := range []int64{512, 4096, 0} {
		out, hits := readParallel(t, data, cs, 2)
		if len(out) != len(want) || hits != len(sizes)+1 {
			t.Errorf("chunks of %d: %d records, %d members from workers; want %d and %d", cs, len(out), hits, len(want), len(sizes)+1)
		}
	}
}

func TestParallelOverBudget(t *testing.T) {
	// Members larger than a chunk's budget are inflated by the reader
	// itself, with the same result; the small ones still come from workers.
	defer func(b int64) { chunkBudget = b }(chunkBudget)
	chunkBudget = 20000
	data := writeSample(t, true, []int{100, 50000, 100, 70000, 100})
	readAll(t, data)                         // the parallel reads equal the sequential one
	_, hits := readParallel(t, data, 256, 2) // at most one member start per chunk
	if hits != 4 {                           // warcinfo and the three small responses
		t.Errorf("%d members from workers, want 4", hits)
	}
}

func TestParallelDamage(t *testing.T) {
	// Damage at every position of a member's header and at a few of its
	// body: the parallel reader reports and recovers exactly as the
	// sequential one does (readAll compares them).
	data := writeSample(t, true, []int{300, 2000, 300})
	recs, _ := readAll(t, data)
	m := recs[2].rec
	for _, off := range []int64{0, 1, 2, 3, 4, 9, 10, 20, m.Length / 2, m.Length - 8, m.Length - 4, m.Length - 1} {
		b := bytes.Clone(data)
		b[m.Offset+off] ^= 0x55
		readAll(t, b)
		readAll(t, b[:m.Offset+off]) // cut there
	}
}

func TestParallelClose(t *testing.T) {
	// Close in the middle stops the workers; the reader then returns an
	// error, not records.
	data := writeSample(t, true, []int{1000, 1000, 1000, 1000})
	rd := newReaderAt(bytes.NewReader(data), int64(len(data)), 2, 64)
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	rd.Close()
	rd.Close()
	if _, err := rd.Next(); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("Next after Close: %v, want an error", err)
	}
}

func TestParallelPlain(t *testing.T) {
	// An uncompressed file through NewReaderAt reads as with NewReader.
	data := writeSample(t, false, []int{10, 3000})
	want, seq := readAll(t, data)
	rd := NewReaderAt(bytes.NewReader(data), int64(len(data)), 0)
	defer rd.Close()
	out, _, err := readWith(rd)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffReads(want, seq, out, rd); diff != "" {
		t.Error(diff)
	}
}

// TestParallelEmptyMembersBounded: a file of hundreds of thousands of
// empty gzip members (20 bytes each) between two records costs the
// parallel reader about the sequential reader's memory: members that
// decompress to nothing still count against a chunk's budget, and a chunk
// keeps at most maxChunkMembers. Before, every one held a 256 KiB buffer
// until read (an attacker's 69 MB file: 796 MB against 174 MB).
func TestParallelEmptyMembersBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200,000 members twice")
	}
	var f bytes.Buffer
	f.Write(writeSample(t, true, []int{100}))
	empty := gzipAll(nil)
	for range 200_000 {
		f.Write(empty)
	}
	f.Write(writeSample(t, true, []int{200}))
	data := f.Bytes()
	peak := func(read func() int) (int, uint64) {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		stop, done := make(chan struct{}), make(chan uint64)
		go func() {
			var m runtime.MemStats
			var top uint64
			for {
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapInuse)
				select {
				case <-stop:
					done <- top - min(top, base.HeapInuse)
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		n := read()
		close(stop)
		return n, <-done
	}
	nSeq, seq := peak(func() int {
		out, _, err := readWith(NewReader(bytes.NewReader(data)))
		if err != nil {
			t.Fatal(err)
		}
		return len(out)
	})
	nPar, par := peak(func() int {
		rd := NewReaderAt(bytes.NewReader(data), int64(len(data)), 4)
		defer rd.Close()
		out, _, err := readWith(rd)
		if err != nil {
			t.Fatal(err)
		}
		return len(out)
	})
	t.Logf("%d bytes, 200,000 empty members: sequential %d records, heap +%d MiB; parallel %d records, +%d MiB", len(data), nSeq, seq>>20, nPar, par>>20)
	if nPar != nSeq || nSeq != 4 {
		t.Fatalf("records: sequential %d, parallel %d; want 4 each", nSeq, nPar)
	}
	bound := uint64(32 << 20)
	if raceEnabled { // the race detector's bookkeeping grows the heap (+34 MiB seen); unbounded was +45 GiB
		bound = 128 << 20
	}
	if par > seq+bound {
		t.Fatalf("parallel reader peak heap +%d MiB, sequential +%d MiB: more than %d MiB above", par>>20, seq>>20, bound>>20)
	}
}
