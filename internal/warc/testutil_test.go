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

// readAll reads every record of data, failing on a fatal error.
func readAll(t testing.TB, data []byte) ([]got, *Reader) {
	t.Helper()
	rd := NewReader(bytes.NewReader(data))
	var out []got
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, rd
		}
		if err != nil {
			t.Fatalf("Next after %d records: %v", len(out), err)
		}
		body, err := io.ReadAll(rec.Body)
		out = append(out, got{rec, body, err})
	}
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
