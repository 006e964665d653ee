package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// got is what a test read from one record.
type got struct {
	rec     *Record
	body    []byte
	bodyErr error
}

// readAll reads every record of data, failing on a fatal error. It also
// reads data with NewReaderAt (see sameAsParallel) and fails if anything
// differs.
func readAll(t testing.TB, data []byte) ([]got, *Reader) {
	t.Helper()
	out, rd, err := readWith(NewReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatalf("Next after %d records: %v", len(out), err)
	}
	sameAsParallel(t, data, out, rd)
	return out, rd
}

// readWith reads every record from rd until EOF or a fatal error.
func readWith(rd *Reader) ([]got, *Reader, error) {
	var out []got
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, rd, nil
		}
		if err != nil {
			return out, rd, err
		}
		body, err := io.ReadAll(rec.Body)
		out = append(out, got{rec, body, err})
	}
}

// parallelChunks are the chunk sizes sameAsParallel tries: tiny ones put
// member starts, magics and headers across chunk boundaries.
var parallelChunks = []int64{3, 61, 4096, 0}

// sameAsParallel reads data again with the parallel reader of
// NewReaderAt, at several chunk sizes and worker counts, and fails unless
// records, bodies, errors, offsets and problems equal the sequential
// reader's (want, from seq).
func sameAsParallel(t testing.TB, data []byte, want []got, seq *Reader) {
	t.Helper()
	for i, cs := range parallelChunks {
		rd := newReaderAt(bytes.NewReader(data), int64(len(data)), 1+i%3, cs)
		out, _, err := readWith(rd)
		rd.Close()
		if err != nil {
			t.Fatalf("parallel (chunks of %d): Next after %d records: %v", cs, len(out), err)
		}
		if diff := diffReads(want, seq, out, rd); diff != "" {
			t.Fatalf("parallel reader (chunks of %d) differs from the sequential one: %s", cs, diff)
		}
	}
}

// diffReads describes the first difference between two reads, "" if none.
func diffReads(a []got, ra *Reader, b []got, rb *Reader) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d records, want %d", len(b), len(a))
	}
	for i := range a {
		x, y := a[i], b[i]
		if !bytes.Equal(x.body, y.body) || fmt.Sprint(x.bodyErr) != fmt.Sprint(y.bodyErr) {
			return fmt.Sprintf("record %d: body of %d bytes (err %v), want %d (err %v)", i, len(y.body), y.bodyErr, len(x.body), x.bodyErr)
		}
		xr, yr := *x.rec, *y.rec
		xr.Body, yr.Body = nil, nil
		if fmt.Sprintf("%#v", xr) != fmt.Sprintf("%#v", yr) {
			return fmt.Sprintf("record %d: %+v, want %+v", i, yr, xr)
		}
	}
	if pa, pb := fmt.Sprint(ra.Problems()), fmt.Sprint(rb.Problems()); pa != pb || ra.ProblemCount() != rb.ProblemCount() {
		return fmt.Sprintf("problems %s (%d), want %s (%d)", pb, rb.ProblemCount(), pa, ra.ProblemCount())
	}
	return ""
}

// httpResponse returns a plain HTTP/1.1 200 response with the given body.
func httpResponse(body []byte) []byte {
	head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))
	return append([]byte(head), body...)
}

// htmlBody returns n bytes of deterministic HTML-like text.
func htmlBody(n int, seed int) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><body>\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "<p id=%d-%d>Paragraph %d of page %d, some words to compress.</p>\n", seed, i, i, seed)
	}
	return b.Bytes()[:n]
}

// gzipWriters reuses gzip writers, whose allocation dominates fuzzing.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// gzipAll compresses data as a single gzip member.
func gzipAll(data []byte) []byte {
	var b bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

var testDate = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// writeSample writes a warcinfo record and n response records.
func writeSample(t testing.TB, gzipEach bool, sizes []int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, gzipEach)
	if err := w.WriteWarcinfo("sample.warc", Header{{"software", "lazarus-test"}}); err != nil {
		t.Fatal(err)
	}
	for i, n := range sizes {
		uri := fmt.Sprintf("http://example.com/page%d.html", i)
		if err := w.WriteResponse(uri, testDate, httpResponse(htmlBody(n, i))); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func isTruncated(err error) bool { return errors.Is(err, ErrTruncated) }
