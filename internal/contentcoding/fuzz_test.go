package contentcoding

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

var fuzzCodings = []string{"", "gzip", "deflate", "br", "zstd", "gzip, zstd", "br, gzip", "xz"}

// FuzzDecode: any body under any Content-Encoding (and as a replay hint)
// decodes without a panic, and reading stays within the bound asked.
func FuzzDecode(f *testing.F) {
	p := page(2000)
	f.Add(p, uint8(0), false)
	f.Add(encode(f, p, "gzip"), uint8(1), false)
	f.Add(encode(f, p, "zstd"), uint8(4), false)
	f.Add(encode(f, p, "br"), uint8(3), true)
	f.Add(encode(f, p, "zstd"), uint8(0), false)
	f.Add(bomb(f, "zstd", "gzip"), uint8(5), false)
	f.Fuzz(func(t *testing.T, body []byte, which uint8, hint bool) {
		h := http.Header{}
		name := "Content-Encoding"
		if hint {
			name = origHeader
		}
		if c := fuzzCodings[int(which)%len(fuzzCodings)]; c != "" {
			h.Set(name, c)
		}
		r, _, err := Decode(bytes.NewReader(body), h)
		if err != nil {
			return
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<20))
		if n > 1<<20 {
			t.Fatalf("read %d bytes past the bound", n)
		}
	})
}

// FuzzRoundTrip: whatever a real encoder makes of a body, in each coding
// and stacked, decodes back to the body.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("<html>x</html>"), uint8(3))
	f.Add([]byte{}, uint8(4))
	f.Add(page(5000), uint8(6))
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		codings := Parse([]string{fuzzCodings[1+int(which)%(len(fuzzCodings)-2)]})
		r, err := NewReader(bytes.NewReader(encode(t, body, codings...)), codings)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%v: got %d bytes, %v; want %d", codings, len(got), err, len(body))
		}
	})
}

// FuzzResponse: a fetched response with any body, chunked or not, under
// any coding, is read without a panic and within the bound asked.
func FuzzResponse(f *testing.F) {
	p := page(1000)
	f.Add(p, uint8(0), uint8(0))
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"), uint8(0), uint8(1))
	f.Add([]byte("10;ext=1\r\n"+string(encode(f, p, "zstd")[:16])+"\r\n0\r\n\r\n"), uint8(4), uint8(2))
	f.Add(encode(f, p, "br"), uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, which, framing uint8) {
		resp := &http.Response{Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
		if c := fuzzCodings[int(which)%len(fuzzCodings)]; c != "" {
			resp.Header.Set("Content-Encoding", c)
		}
		switch framing % 3 {
		case 1:
			resp.TransferEncoding = []string{"chunked"}
		case 2:
			resp.Header.Set("X-Archive-Orig-Transfer-Encoding", "chunked")
		}
		r, _, err := Response(resp)
		if err != nil {
			return
		}
		if n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<20)); n > 1<<20 {
			t.Fatalf("read %d bytes past the bound", n)
		}
	})
}
