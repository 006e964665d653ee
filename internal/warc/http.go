package warc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

var (
	// ErrNotHTTP is returned by HTTPResponse for a record that is not a
	// response record holding an HTTP message.
	ErrNotHTTP = errors.New("warc: record is not an HTTP response")
	// ErrUnsupportedEncoding is returned by HTTPResponse, together with the
	// still-encoded body, when a Content-Encoding cannot be decoded.
	ErrUnsupportedEncoding = errors.New("warc: unsupported Content-Encoding")
)

// maxEncodings bounds the number of stacked Content-Encodings decoded.
const maxEncodings = 4

// HTTPResponse parses the HTTP response stored in a response record whose
// Content-Type is application/http. The returned body is de-chunked and
// decoded according to Transfer-Encoding and Content-Encoding (gzip,
// x-gzip, deflate; identity). For another encoding, such as br, it returns
// the body as stored with an error wrapping ErrUnsupportedEncoding.
// The header is returned as archived. The body reads from r.Body; the
// caller bounds how much of it to read.
func (r *Record) HTTPResponse() (status int, header http.Header, body io.Reader, err error) {
	if !isHTTPResponse(r.Header) {
		return 0, nil, nil, ErrNotHTTP
	}
	lim := &headerLimit{r: r.Body, left: MaxHeaderSize + MaxLineSize}
	br := bufio.NewReaderSize(lim, MaxLineSize)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("warc: parsing HTTP response of %s: %w", r.TargetURI, err)
	}
	lim.left = -1
	body = resp.Body
	if isChunked(resp) && !looksChunked(br) {
		body = br // de-chunked by the archiver, header kept
	}
	body, err = decodeContent(body, resp.Header.Values("Content-Encoding"))
	return resp.StatusCode, resp.Header, body, err
}

func isChunked(resp *http.Response) bool {
	return len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
}

// looksChunked reports whether the unread body in br starts like chunked
// coding: hex digits, then optional blanks or a chunk extension, then a
// line end. Some archivers store bodies de-chunked but keep the
// Transfer-Encoding header.
func looksChunked(br *bufio.Reader) bool {
	head, _ := br.Peek(64)
	i := 0
	for i < len(head) && i <= 16 && strings.IndexByte("0123456789abcdefABCDEF", head[i]) >= 0 {
		i++
	}
	if i == 0 || i > 16 {
		return false
	}
	for ; i < len(head); i++ {
		switch head[i] {
		case ' ', '\t':
		case ';', '\r', '\n':
			return true
		default:
			return false
		}
	}
	return i == len(head) // cut short: let the chunked reader decide
}

// headerLimit fails reads after left bytes, bounding the memory the HTTP
// header parser may use; left < 0 means unlimited.
type headerLimit struct {
	r    io.Reader
	left int64
}

func (h *headerLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(p)
	}
	if h.left == 0 {
		return 0, fmt.Errorf("warc: HTTP header longer than %d bytes", MaxHeaderSize)
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.r.Read(p)
	h.left -= int64(n)
	return n, err
}

// decodeContent undoes the listed content codings, last applied first.
func decodeContent(body io.Reader, values []string) (io.Reader, error) {
	var codings []string
	for _, v := range values {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) > maxEncodings {
		return body, fmt.Errorf("%w: %d stacked encodings", ErrUnsupportedEncoding, len(codings))
	}
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		if body, err = decoder(body, codings[i]); err != nil {
			return body, err
		}
	}
	return body, nil
}

// decoder returns a reader decoding one content coding.
func decoder(r io.Reader, coding string) (io.Reader, error) {
	switch coding {
	case "gzip", "x-gzip":
		return &lazyReader{open: func() (io.Reader, error) { return gzip.NewReader(r) }}, nil
	case "deflate":
		br := bufio.NewReader(r)
		return &lazyReader{open: func() (io.Reader, error) { return newDeflate(br) }}, nil
	default:
		return r, fmt.Errorf("%w: %q", ErrUnsupportedEncoding, coding)
	}
}

// newDeflate decodes HTTP "deflate", which is zlib (RFC 1950) by the
// standard but raw deflate (RFC 1951) from some servers.
func newDeflate(br *bufio.Reader) (io.Reader, error) {
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// lazyReader opens its source on first Read, so that header errors of a
// compressed body surface as read errors.
type lazyReader struct {
	open func() (io.Reader, error)
	r    io.Reader
	err  error
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.r == nil && l.err == nil {
		l.r, l.err = l.open()
		if l.err != nil {
			l.err = fmt.Errorf("warc: decoding HTTP body: %w", l.err)
		}
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.r.Read(p)
}
