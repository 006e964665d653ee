package warc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
)

var (
	// ErrNotHTTP is returned by HTTPResponse for a record that is not a
	// response record holding an HTTP message.
	ErrNotHTTP = errors.New("warc: record is not an HTTP response")
	// ErrUnsupportedEncoding is wrapped by the error HTTPResponse returns,
	// together with the still-encoded body, when a content coding cannot
	// be undone (a *contentcoding.UnsupportedError names it).
	ErrUnsupportedEncoding = contentcoding.ErrUnsupported
)

// HTTPResponse parses the HTTP response stored in a response record whose
// Content-Type is application/http. The returned body is de-chunked and
// decoded according to Transfer-Encoding and Content-Encoding as
// contentcoding.Decode does (gzip, x-gzip, deflate, br, zstd, stacked; a
// body stored decoded under its coding's header is read as it is). For a
// coding it cannot undo it returns the body as stored with an error
// wrapping ErrUnsupportedEncoding.
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
	if isChunked(resp) && !contentcoding.LooksChunked(br) {
		body = br // de-chunked by the archiver, header kept
	}
	body, _, err = contentcoding.Decode(body, resp.Header)
	return resp.StatusCode, resp.Header, body, err
}

func isChunked(resp *http.Response) bool {
	return len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
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
