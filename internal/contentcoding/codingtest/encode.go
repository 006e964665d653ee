// Package codingtest encodes bodies in HTTP content codings with the
// real encoders, for tests of what reads them.
package codingtest

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// Encode applies codings to b in the order given, as a server whose
// Content-Encoding lists them in that order did: "gzip", "x-gzip",
// "deflate" (zlib), "br" or "zstd".
func Encode(b []byte, codings ...string) ([]byte, error) {
	for _, c := range codings {
		var err error
		if b, err = Stream(c, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Stream encodes in coding what write writes, at the encoders' strongest
// usual level (a bomb made this way is as small as a real one).
func Stream(coding string, write func(io.Writer) error) ([]byte, error) {
	var out bytes.Buffer
	var w io.WriteCloser
	var err error
	switch coding {
	case "gzip", "x-gzip":
		w, err = gzip.NewWriterLevel(&out, gzip.BestCompression)
	case "deflate":
		w, err = zlib.NewWriterLevel(&out, zlib.BestCompression)
	case "br":
		w = brotli.NewWriterLevel(&out, 5)
	case "zstd":
		w, err = zstd.NewWriter(&out)
	default:
		return nil, fmt.Errorf("codingtest: no encoder for %q", coding)
	}
	if err != nil {
		return nil, err
	}
	if err := write(w); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// MustEncode is Encode failing tb on an error.
func MustEncode(tb testing.TB, b []byte, codings ...string) []byte {
	tb.Helper()
	out, err := Encode(b, codings...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
