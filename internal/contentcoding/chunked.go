package contentcoding

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httputil"
	"strings"
)

// LooksChunked reports whether the unread body in br starts like HTTP/1.1
// chunked framing: hex digits, then optional blanks or a chunk extension,
// then a line end. Archivers that store a body de-chunked often keep its
// Transfer-Encoding header, and replays may serve stored framing inside
// their own: the bytes, not the header, say which it is.
func LooksChunked(br *bufio.Reader) bool {
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

// Response returns the body of a fetched response (a replay, a live
// page) with what archives leave in it undone: chunked framing still
// inside the body when the response, or the original one it replays
// (X-Archive-Orig-Transfer-Encoding), was chunked; then the content
// codings, as Decode undoes them. Go's transport has removed the
// response's own framing and, where it asked for gzip itself, its gzip.
func Response(resp *http.Response) (io.Reader, []string, error) {
	var body io.Reader = resp.Body
	if chunkedResponse(resp) {
		br := bufio.NewReaderSize(resp.Body, 4096)
		body = br
		if LooksChunked(br) {
			body = httputil.NewChunkedReader(br)
		}
	}
	return Decode(body, resp.Header)
}

// chunkedResponse reports whether resp, or the response it replays, was
// sent in chunked framing.
func chunkedResponse(resp *http.Response) bool {
	for _, te := range resp.TransferEncoding {
		if strings.EqualFold(te, "chunked") {
			return true
		}
	}
	for _, v := range resp.Header.Values("X-Archive-Orig-Transfer-Encoding") {
		if strings.Contains(strings.ToLower(v), "chunked") {
			return true
		}
	}
	return strings.Contains(strings.ToLower(resp.Header.Get("Transfer-Encoding")), "chunked")
}
