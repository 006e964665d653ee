package warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
	"testing"
)

var benchData struct {
	once sync.Once
	gz   []byte // per-record gzip WARC
	size int64  // decompressed size
}

// benchWARC returns a per-record-gzip WARC of about 100 MiB (decompressed)
// of 20–200 KiB HTML responses, and its decompressed size.
func benchWARC(b *testing.B) ([]byte, int64) {
	benchData.once.Do(func() {
		var out bytes.Buffer
		w := NewWriter(&out, true)
		pages := make([][]byte, 16)
		for i := range pages {
			pages[i] = httpResponse(htmlBody(20<<10+i*(180<<10)/15, i))
		}
		for i, total := 0, 0; total < 100<<20; i++ {
			page := pages[i%len(pages)]
			uri := fmt.Sprintf("http://example.com/%d.html", i)
			if err := w.WriteResponse(uri, testDate, page); err != nil {
				b.Fatal(err)
			}
			total += len(page)
		}
		benchData.gz = out.Bytes()
		zr, _ := gzip.NewReader(bytes.NewReader(benchData.gz))
		benchData.size, _ = io.Copy(io.Discard, zr)
	})
	return benchData.gz, benchData.size
}

func BenchmarkReader_100MiB(b *testing.B) {
	benchRead(b, func(data []byte) *Reader { return NewReader(bytes.NewReader(data)) })
}

// BenchmarkReaderAt_100MiB reads the same file as BenchmarkReader_100MiB
// with NewReaderAt: members inflated ahead on GOMAXPROCS workers.
func BenchmarkReaderAt_100MiB(b *testing.B) {
	benchRead(b, func(data []byte) *Reader { return NewReaderAt(bytes.NewReader(data), int64(len(data)), 0) })
}

// benchRead reads every record of the benchmark file, with the reader
// open makes.
func benchRead(b *testing.B, open func([]byte) *Reader) {
	data, size := benchWARC(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd := open(data)
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rec.Body); err != nil {
				b.Fatal(err)
			}
		}
		rd.Close()
	}
}

// BenchmarkGunzipBaseline_100MiB only decompresses the same file: the
// upper bound for BenchmarkReader_100MiB.
func BenchmarkGunzipBaseline_100MiB(b *testing.B) {
	data, size := benchWARC(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHTTPResponse_gzip64K(b *testing.B) {
	page := htmlBody(64<<10, 1)
	msg := append([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n"), gzipAll(page)...)
	h := Header{{"WARC-Type", "response"}, {"Content-Type", "application/http"}}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		rec := &Record{Header: h, Body: bytes.NewReader(msg)}
		_, _, body, err := rec.HTTPResponse()
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, body)
	}
}
