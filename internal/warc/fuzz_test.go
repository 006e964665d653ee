package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.warc"))
	for _, name := range files {
		data, _ := os.ReadFile(name)
		f.Add(data, false)
		f.Add(data, true)
	}
	f.Add(writeSample(f, true, []int{10, 300}), false)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		if gz {
			data = gzipAll(data)
		}
		rd := NewReader(bytes.NewReader(data))
		for n := 0; ; n++ {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			if n > len(data) {
				t.Fatal("more records than input bytes")
			}
			// Every record's body is readable: exactly Content-Length
			// bytes, or fewer with ErrTruncated.
			got, err := io.Copy(io.Discard, rec.Body)
			if err != nil && !errors.Is(err, ErrTruncated) || err == nil && got != rec.ContentLength {
				t.Fatalf("record %d: read %d of %d bytes, err %v", n, got, rec.ContentLength, err)
			}
			if rec.Type == "" {
				t.Fatal("record without WARC-Type accepted")
			}
		}
		if len(rd.Problems()) > maxProblems || rd.ProblemCount() < len(rd.Problems()) {
			t.Fatal("problem bookkeeping broken")
		}
	})
}

func FuzzHTTPResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n" + string(chunk(gzipAll([]byte("hello")), 7))))
	f.Add([]byte("HTTP/1.0 404 Not Found\r\nContent-Encoding: deflate\r\n\r\n" + string(zlibBytes([]byte("x")))))
	f.Add(httpResponse([]byte("<html></html>")))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\n\r\n" + string(encoded([]byte("<p>hello</p>"), "zstd"))))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n" + string(encoded([]byte("<p>hello</p>"), "br"))))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip, zstd\r\n\r\n" + string(chunk(encoded([]byte("<p>hi</p>"), "gzip", "zstd"), 5))))
	f.Fuzz(func(t *testing.T, msg []byte) {
		rec := &Record{Type: "response", Body: bytes.NewReader(msg),
			Header: Header{{"WARC-Type", "response"}, {"Content-Type", "application/http"}}}
		status, h, body, err := rec.HTTPResponse()
		if body == nil {
			if err == nil {
				t.Fatal("no body and no error")
			}
			return
		}
		if status < 0 || status > 999 || h == nil {
			t.Fatalf("status %d, header %v", status, h)
		}
		// Bounded read: the body may be a decompression bomb.
		io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	})
}

func FuzzParallelReader(f *testing.F) {
	// The parallel reader of NewReaderAt must read any input exactly as
	// NewReader does: records, bodies, offsets, problems.
	data := writeSample(f, true, []int{10, 300, 2000})
	f.Add(data, uint16(7))
	f.Add(append(bytes.Clone(data[:len(data)/2]), data...), uint16(100))
	f.Add(gzipAll(writeSample(f, false, []int{10, 300})), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		want, seq, werr := readWith(NewReader(bytes.NewReader(data)))
		rd := newReaderAt(bytes.NewReader(data), int64(len(data)), 2, int64(chunk)+1)
		defer rd.Close()
		out, _, err := readWith(rd)
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("error %v, want %v", err, werr)
		}
		if diff := diffReads(want, seq, out, rd); diff != "" {
			t.Fatal(diff)
		}
	})
}
