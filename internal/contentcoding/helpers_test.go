package contentcoding

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
)

// encode applies codings to b in order, with the real encoders.
func encode(tb testing.TB, b []byte, codings ...string) []byte {
	tb.Helper()
	b, err := codingtest.Encode(b, codings...)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// encodeStream encodes in coding what write writes.
func encodeStream(tb testing.TB, coding string, write func(io.Writer)) []byte {
	tb.Helper()
	b, err := codingtest.Stream(coding, func(w io.Writer) error { write(w); return nil })
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// rawDeflate is deflate without zlib's header, as some servers send it.
func rawDeflate(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, 5)
	w.Write(b)
	w.Close()
	return out.Bytes()
}
