package warc

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
)

// chunk splits b into HTTP/1.1 chunks of at most n bytes.
func chunk(b []byte, n int) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		c := b[:min(n, len(b))]
		fmt.Fprintf(&out, "%x\r\n%s\r\n", len(c), c)
		b = b[len(c):]
	}
	out.WriteString("0\r\n\r\n")
	return out.Bytes()
}

func zlibBytes(b []byte) []byte {
	var out bytes.Buffer
	zw := zlib.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// encoded applies codings to b with the real encoders.
func encoded(b []byte, codings ...string) []byte {
	out, err := codingtest.Encode(b, codings...)
	if err != nil {
		panic(err)
	}
	return out
}

func flateBytes(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := flate.NewWriter(&out, 5)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// responseRecord wraps an HTTP message in a response record and reads it
// back.
func responseRecord(t *testing.T, msg []byte) *Record {
	t.Helper()
	var b bytes.Buffer
	if err := NewWriter(&b, true).WriteResponse("http://example.com/", testDate, msg); err != nil {
		t.Fatal(err)
	}
	rec, err := NewReader(&b).Next()
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestHTTPResponse(t *testing.T) {
	page := htmlBody(30000, 7)
	tests := []struct {
		name    string
		headers string
		payload []byte
		wantErr error // nil: body must decode to page
	}{
		{"identity", "Content-Length: 30000\r\n", page, nil},
		{"chunked gzip", "Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", chunk(gzipAll(page), 1000), nil},
		{"deflate zlib", "Content-Encoding: deflate\r\n", zlibBytes(page), nil},
		{"deflate raw", "Content-Encoding: Deflate\r\n", flateBytes(page), nil},
		// Stored de-chunked with the header kept: read as is.
		{"chunked header, plain body", "Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", gzipAll(page), nil},
		{"gzip twice", "Content-Encoding: gzip, gzip\r\n", gzipAll(gzipAll(page)), nil},
		{"brotli", "Content-Encoding: br\r\n", encoded(page, "br"), nil},
		{"zstd", "Content-Encoding: zstd\r\n", encoded(page, "zstd"), nil},
		{"chunked zstd", "Transfer-Encoding: chunked\r\nContent-Encoding: zstd\r\n", chunk(encoded(page, "zstd"), 777), nil},
		{"stacked gzip, zstd", "Content-Encoding: gzip, zstd\r\n", encoded(page, "gzip", "zstd"), nil},
		{"stacked over two headers", "Content-Encoding: br\r\nContent-Encoding: gzip\r\n", encoded(page, "br", "gzip"), nil},
		// Stored decoded with the coding's header kept: read as is.
		{"zstd header, plain body", "Content-Encoding: zstd\r\n", page, nil},
		// Stored encoded without a header: the magic number says.
		{"zstd body, no header", "", encoded(page, "zstd"), nil},
		// A coding nobody can read: the raw body comes back with the error.
		{"xz", "Content-Encoding: xz\r\n", []byte("\xfd7zXZ\x00\x00"), ErrUnsupportedEncoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"+tt.headers+"\r\n"), tt.payload...)
			status, h, body, err := responseRecord(t, msg).HTTPResponse()
			if !errors.Is(err, tt.wantErr) || status != 200 || h.Get("Content-Type") != "text/html" {
				t.Fatalf("status %d, header %v, err %v", status, h, err)
			}
			if tt.wantErr != nil {
				return
			}
			got, err := io.ReadAll(body)
			if err != nil || !bytes.Equal(got, page) {
				t.Errorf("body %d bytes, err %v; want the page", len(got), err)
			}
		})
	}
}

func TestHTTPResponseErrors(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{"not HTTP", "GET / HTTP/1.1\r\n\r\n"},                                                  // no status line
		{"header too long", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 2<<20) + "\r\n\r\n"}, // over MaxHeaderSize
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, _, err := responseRecord(t, []byte(tt.msg)).HTTPResponse(); err == nil {
				t.Error("HTTPResponse succeeded")
			}
		})
	}
	t.Run("corrupt gzip", func(t *testing.T) {
		// The header parses; the body fails on read.
		msg := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\nnot gzip at all"
		_, _, body, err := responseRecord(t, []byte(msg)).HTTPResponse()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(body); err == nil {
			t.Error("reading corrupt gzip body succeeded")
		}
	})
	t.Run("resource record", func(t *testing.T) {
		var b bytes.Buffer
		NewWriter(&b, false).WriteRecord(Header{{"WARC-Type", "resource"}}, []byte("x"))
		rec, _ := NewReader(&b).Next()
		if _, _, _, err := rec.HTTPResponse(); !errors.Is(err, ErrNotHTTP) {
			t.Errorf("err %v, want ErrNotHTTP", err)
		}
	})
}
