package contentcoding

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// page is an HTML page of about n bytes, varied so that it compresses
// like a real one rather than to nothing.
func page(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><body>\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "<p id=\"p%d\">paragraph %d of the page, %x</p>\n", i, i, i*2654435761)
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

func TestNewReaderUndoesEveryCoding(t *testing.T) {
	want := page(200 << 10)
	for _, codings := range [][]string{
		{"gzip"}, {"x-gzip"}, {"deflate"}, {"br"}, {"zstd"},
		{"gzip", "zstd"}, {"zstd", "gzip"}, {"br", "gzip"}, {"deflate", "br", "zstd", "gzip"},
	} {
		t.Run(strings.Join(codings, ","), func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(encode(t, want, codings...)), codings)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, err %v; want %d bytes", len(got), err, len(want))
			}
		})
	}
}

func TestRawDeflateFromOldServers(t *testing.T) {
	want := page(10 << 10)
	r, _ := NewReader(bytes.NewReader(rawDeflate(t, want)), []string{"deflate"})
	if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("raw deflate: %d bytes, %v", len(got), err)
	}
}

func TestUnsupportedCodingIsNamed(t *testing.T) {
	body := []byte{0x1f, 0x9d, 0x90, 1, 2, 3} // compress (LZW)
	for _, tc := range []struct {
		codings []string
		name    string
	}{
		{[]string{"compress"}, `"compress"`},
		{[]string{"gzip", "xz"}, `"xz"`},
		{[]string{"gzip", "gzip", "gzip", "gzip", "gzip"}, "5 stacked codings"},
		// Each may need a 16-32 MiB window; no server stacks them.
		{[]string{"zstd", "gzip", "zstd"}, `"zstd twice"`},
		{[]string{"br", "br"}, `"br twice"`},
	} {
		r, err := NewReader(bytes.NewReader(body), tc.codings)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.name) {
			t.Fatalf("%v: err %v, want an UnsupportedError naming %s", tc.codings, err, tc.name)
		}
		if got, _ := io.ReadAll(r); !bytes.Equal(got, body) {
			t.Fatalf("%v: the body is not returned as it is", tc.codings)
		}
	}
}

func TestParse(t *testing.T) {
	got := Parse([]string{" GZIP , identity", "", "zstd,,Br"})
	if fmt.Sprint(got) != "[gzip zstd br]" {
		t.Fatalf("got %q", got)
	}
}

// TestDecodeFollowsHeaderAndBytes: what Decode undoes for each way an
// archive stores a body.
func TestDecodeFollowsHeaderAndBytes(t *testing.T) {
	want := page(50 << 10)
	header := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name    string
		h       http.Header
		body    []byte
		undone  string
		wantErr error
	}{
		{"identity", header(), want, "[]", nil},
		{"declared zstd", header("Content-Encoding", "zstd"), encode(t, want, "zstd"), "[zstd]", nil},
		{"declared stacked", header("Content-Encoding", "gzip", "Content-Encoding", "br"), encode(t, want, "gzip", "br"), "[gzip br]", nil},
		// Stored decoded with the header kept (as some archivers do).
		{"declared, stored decoded", header("Content-Encoding", "br"), want, "[]", nil},
		{"declared, decoded, BOM and blanks", header("Content-Encoding", "zstd"), append([]byte("\ufeff \r\n"), want...), "[]", nil},
		// More blanks than Decode looks at: no coding's output starts so.
		{"declared, decoded, 5000 blanks", header("Content-Encoding", "br"), append(bytes.Repeat([]byte("\n"), 5000), want...), "[]", nil},
		{"replay hint deflate, 600 blanks", header("X-Archive-Orig-Content-Encoding", "deflate"), append(bytes.Repeat([]byte("\n"), 600), want...), "[]", nil},
		// A mirror file, or a record whose header was lost.
		{"sniffed gzip", header(), encode(t, want, "gzip"), "[gzip]", nil},
		{"sniffed zstd", header(), encode(t, want, "zstd"), "[zstd]", nil},
		// A Wayback replay naming the original response's coding.
		{"replay hint br", header("X-Archive-Orig-Content-Encoding", "br"), encode(t, want, "br"), "[br]", nil},
		{"replay hint, decoded text", header("X-Archive-Orig-Content-Encoding", "br"), []byte("plain text, not markup, already decoded"), "[]", nil},
		{"unknown coding", header("Content-Encoding", "xz"), []byte{0xfd, '7', 'z', 'X', 'Z', 0}, "[xz]", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, undone, err := Decode(bytes.NewReader(tt.body), tt.h)
			if !errors.Is(err, tt.wantErr) || fmt.Sprint(undone) != tt.undone {
				t.Fatalf("undone %v, err %v; want %s, %v", undone, err, tt.undone, tt.wantErr)
			}
			if err != nil {
				return
			}
			got, err := io.ReadAll(r)
			wantBody := tt.body
			if tt.undone != "[]" {
				wantBody = want
			}
			if err != nil || !bytes.Equal(got, wantBody) {
				t.Fatalf("got %d bytes, err %v; want %d bytes", len(got), err, len(wantBody))
			}
		})
	}
}

// TestCutShortIsUnexpectedEOF: a body cut short ends in an error wrapping
// io.ErrUnexpectedEOF in every coding, so that readers of captures ask
// for it again instead of taking it as whole.
func TestCutShortIsUnexpectedEOF(t *testing.T) {
	want := page(300 << 10)
	for _, c := range []string{"gzip", "deflate", "br", "zstd"} {
		enc := encode(t, want, c)
		r, _ := NewReader(bytes.NewReader(enc[:len(enc)*2/3]), []string{c})
		got, err := io.ReadAll(r)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s cut short: %d bytes, err %v; want io.ErrUnexpectedEOF", c, len(got), err)
		}
		if !bytes.HasPrefix(want, got) {
			t.Errorf("%s cut short: what was read is not the page's start", c)
		}
	}
}

// TestDamagedBodyIsAnError: garbage in a declared coding is a read error,
// never a panic or silent empty page.
func TestDamagedBodyIsAnError(t *testing.T) {
	junk := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1000)
	for _, c := range []string{"gzip", "deflate", "br", "zstd"} {
		r, _ := NewReader(bytes.NewReader(junk), []string{c})
		if _, err := io.ReadAll(r); err == nil {
			t.Errorf("%s of junk: no error", c)
		}
	}
}

// TestReaderReusedAfterEnd: pooled decoders handed back at the end of a
// stream decode the next body right, one after the other and
// concurrently.
func TestReaderReusedAfterEnd(t *testing.T) {
	type body struct {
		coding    string
		enc, want []byte
	}
	var bodies []body
	for i := 0; i < 20; i++ {
		want := page(1000 * (i + 1))
		for _, c := range []string{"br", "zstd"} {
			bodies = append(bodies, body{c, encode(t, want, c), want})
		}
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for _, b := range bodies {
				r, _ := NewReader(bytes.NewReader(b.enc), []string{b.coding})
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, b.want) {
					done <- fmt.Errorf("%s body of %d bytes: got %d bytes, %v", b.coding, len(b.want), len(got), err)
					return
				}
				if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
					done <- fmt.Errorf("%s: read after the end: %d, %v", b.coding, n, err)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
