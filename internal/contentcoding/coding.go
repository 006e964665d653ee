package contentcoding

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MaxStacked bounds the codings one body may stack.
const MaxStacked = 4

// ErrUnsupported is wrapped by every *UnsupportedError.
var ErrUnsupported = errors.New("unsupported content coding")

// UnsupportedError says which coding of a body cannot be undone.
type UnsupportedError struct {
	Coding string // as the header spells it, lower case
}

// Error implements error.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("encoded with %q, which cannot be read", e.Coding)
}

// Unwrap makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// Parse returns the codings listed by Content-Encoding header values, in
// the order they were applied, lower case, without "identity".
func Parse(values []string) []string {
	var codings []string
	for _, v := range values {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	return codings
}

// Known reports whether NewReader can undo coding.
func Known(coding string) bool {
	_, ok := openers[coding]
	return ok
}

// NewReader returns a reader of body with codings (in the order applied,
// as Parse returns them) undone, the last applied first. For a coding it
// does not know, more than MaxStacked, or br or zstd twice (each may need
// a window of 16 or 32 MiB; no server stacks them), it returns body as it
// is with an error wrapping ErrUnsupported. Errors of a damaged body surface on
// Read, wrapping the decoder's error (io.ErrUnexpectedEOF for a body cut
// short).
func NewReader(body io.Reader, codings []string) (io.Reader, error) {
	if len(codings) > MaxStacked {
		return body, &UnsupportedError{Coding: fmt.Sprintf("%d stacked codings", len(codings))}
	}
	seen := map[string]bool{}
	for _, c := range codings {
		if !Known(c) {
			return body, &UnsupportedError{Coding: c}
		}
		if (c == "zstd" || c == "br") && seen[c] {
			return body, &UnsupportedError{Coding: c + " twice"} // each may need a 16-32 MiB window
		}
		seen[c] = true
	}
	r := body
	for i := len(codings) - 1; i >= 0; i-- {
		r = &lazy{coding: codings[i], src: r}
	}
	return r, nil
}

// origHeader is where Wayback replays keep the original response's
// Content-Encoding.
const origHeader = "X-Archive-Orig-Content-Encoding"

// sniffSize is how much of a body Decode looks at.
const sniffSize = 4096

// Decode returns an HTTP message body with its content codings undone,
// and the codings it undoes, as h and the body's first bytes say:
//
//   - a body whose first byte that is not blank (or a UTF-8 byte order
//     mark) is '<' is markup, taken as it is: it was stored decoded;
//   - else the codings Content-Encoding lists are undone (an unknown one
//     is an *UnsupportedError, with the body returned as it is);
//   - else a gzip or zstd magic number at the start is undone;
//   - else the codings X-Archive-Orig-Content-Encoding lists, if each is
//     known and they decode the body's first bytes;
//   - else the body is taken as it is.
func Decode(body io.Reader, h http.Header) (io.Reader, []string, error) {
	br := bufio.NewReaderSize(body, sniffSize)
	head, _ := br.Peek(sniffSize)
	if markup(head) {
		return br, nil, nil
	}
	if codings := Parse(h.Values("Content-Encoding")); len(codings) > 0 {
		r, err := NewReader(br, codings)
		return r, codings, err
	}
	if c := Sniff(head); c != "" {
		r, err := NewReader(br, []string{c})
		return r, []string{c}, err
	}
	if hint := Parse(h.Values(origHeader)); len(hint) > 0 && decodes(head, hint) {
		r, err := NewReader(br, hint)
		return r, hint, err
	}
	return br, nil, nil
}

// Sniff returns the coding whose magic number starts head: "gzip"
// (1f 8b 08) or "zstd" (28 b5 2f fd), else "".
func Sniff(head []byte) string {
	switch {
	case len(head) >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8:
		return "gzip"
	case len(head) >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd:
		return "zstd"
	}
	return ""
}

// markup reports whether head starts, after a UTF-8 byte order mark and
// blanks, with '<', or is blanks only: text already decoded. Coded bodies
// do not: gzip and zstd start with their magic numbers, a zlib header's
// first byte is not '<' or a blank, a brotli stream starting with '<'
// sets a reserved bit, and a raw deflate block of blanks has a length
// that does not match its complement.
func markup(head []byte) bool {
	head = trimBOM(head)
	for _, c := range head {
		switch c {
		case ' ', '\t', '\r', '\n', '\f':
			continue
		case '<':
			return true
		}
		return false
	}
	return true
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}

// decodes reports whether codings are known and undo head without an
// error other than running out of input.
func decodes(head []byte, codings []string) bool {
	r, err := NewReader(strings.NewReader(string(head)), codings)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, io.LimitReader(r, 64<<10))
	return err == nil || errors.Is(err, io.ErrUnexpectedEOF)
}

// lazy opens its coding's decoder on the first Read, so that a damaged
// header is a read error, and releases a pooled decoder at the end of
// its stream.
type lazy struct {
	coding  string
	src     io.Reader
	r       io.Reader
	release func()
	err     error
}

func (l *lazy) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.r == nil {
		r, release, err := openers[l.coding](l.src)
		if err != nil {
			l.err = fmt.Errorf("decoding %s: %w", l.coding, err)
			return 0, l.err
		}
		l.r, l.release = r, release
	}
	n, err := l.r.Read(p)
	if err != nil {
		if err != io.EOF {
			err = fmt.Errorf("decoding %s: %w", l.coding, err)
		}
		l.err = err
		if l.release != nil {
			l.release()
			l.release = nil
		}
		l.r = nil
	}
	return n, err
}
