package warc

import (
	"bytes"
	"errors"
	"io"
	"testing"
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
