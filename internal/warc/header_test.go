package warc

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// foldedRecord returns a record whose X-Folded field continues over n
// folded lines (" b"), the shape that made header parsing quadratic.
func foldedRecord(n int) []byte {
	return []byte("WARC/1.0\r\nWARC-Type: resource\r\nX-Folded: a\r\n" + strings.Repeat(" b\r\n", n) +
		"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
}

// TestFoldedHeaderLinear: folded continuation lines are joined in linear
// time and memory. Joining them with += copied the growing value on every
// line: 20,000 folded lines (80 KB) allocated about 400 MB and a header of
// MaxHeaderSize took minutes.
func TestFoldedHeaderLinear(t *testing.T) {
	const n = 20000
	in := foldedRecord(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd := NewReader(bytes.NewReader(in))
	rec, err := rd.Next()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if v := rec.Header.Get("X-Folded"); v != "a"+strings.Repeat(" b", n) {
		t.Fatalf("folded value has %d bytes, want %d", len(v), 1+2*n)
	}
	if rec.Header.Get("WARC-Date") == "" || rec.ContentLength != 0 {
		t.Errorf("fields after the folded one lost: %v", rec.Header)
	}
	// Reading allocates its buffers (2 × MaxLineSize) plus a small multiple
	// of the input; quadratic joining allocates n²·2/2 = 400 MB here.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d folded lines (%d bytes): %d bytes allocated", n, len(in), alloc)
	if limit := uint64(4*MaxLineSize + 64*len(in)); alloc > limit {
		t.Errorf("allocated %d bytes for a %d-byte header, want at most %d", alloc, len(in), limit)
	}
}

// TestFoldedHeaderCases: continuation lines join with one space, each
// trimmed; a continuation before any field is a malformed field.
func TestFoldedHeaderCases(t *testing.T) {
	tests := []struct {
		name, fields, want string
	}{
		{"one fold", "X: a\r\n b\r\n", "a b"},
		{"tab fold, trimmed", "X: a\r\n\t  b  \r\n", "a b"},
		{"two folds", "X: a\r\n b\r\n c\r\n", "a b c"},
		{"empty value folded", "X:\r\n b\r\n", " b"},
		{"fold then new field", "X: a\r\n b\r\nY: c\r\n", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "WARC/1.0\r\nWARC-Type: resource\r\n" + tt.fields + "Content-Length: 0\r\n\r\n\r\n\r\n"
			rec, err := NewReader(strings.NewReader(in)).Next()
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.Header.Get("X"); got != tt.want {
				t.Errorf("X = %q, want %q", got, tt.want)
			}
		})
	}
}
