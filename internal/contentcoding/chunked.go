package contentcoding

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httputil"
	"strings"
)

// LooksChunked reports whether the unread body in br starts like HTTP/1.1
// chunked framing: a chunk-size line (hex digits, then optional blanks or
// a chunk extension, then CRLF or LF) and, when the first chunk ends
// within what br holds, a line end right after its data. Archivers that
// store a body de-chunked often keep its Transfer-Encoding header, and
// replays may serve stored framing inside their own: the bytes, not the
// header, say which it is. Checking where the first chunk ends keeps a
// coded body that happens to start like a size line (a brotli stream can
// start "B\r\n") from being taken for framing.
func LooksChunked(br *bufio.Reader) bool {
	head, err := br.Peek(br.Size())
	size, at, ok := chunkSizeLine(head)
	switch {
	case !ok:
		return false
	case size > int64(len(head)-at) && err != nil:
		return false // the body ends before the chunk would (a cut capture reads as well unframed)
	case at == len(head) || size > int64(len(head)-at):
		return true // beyond what can be seen: let the chunked reader decide
	case size == 0:
		return true // the last chunk: a trailer or the final line end follows
	}
	end := at + int(size)
	rest := head[end:]
	return len(rest) == 0 || rest[0] == '\n' || len(rest) >= 2 && rest[0] == '\r' && rest[1] == '\n' || len(rest) == 1 && rest[0] == '\r'
}

// chunkSizeLine parses a chunk-size line at the start of head: the size
// and where the chunk's data starts. A line cut short by the end of head
// is accepted with at = len(head).
func chunkSizeLine(head []byte) (size int64, at int, ok bool) {
	i := 0
	for ; i < len(head) && i < 16 && strings.IndexByte("0123456789abcdefABCDEF", head[i]) >= 0; i++ {
		size = size<<4 | int64(hexValue(head[i]))
	}
	if i == 0 || i < len(head) && i == 16 && strings.IndexByte("0123456789abcdefABCDEF", head[i]) >= 0 {
		return 0, 0, false
	}
	for ; i < len(head) && (head[i] == ' ' || head[i] == '\t'); i++ {
	}
	if i < len(head) && head[i] == ';' { // an extension, to the line end
		for ; i < len(head) && head[i] != '\n' && head[i] != '\r'; i++ {
		}
	}
	switch {
	case i == len(head):
		return size, i, true
	case head[i] == '\n':
		return size, i + 1, true
	case head[i] == '\r' && i+1 == len(head):
		return size, i + 1, true
	case head[i] == '\r' && head[i+1] == '\n':
		return size, i + 2, true
	}
	return 0, 0, false
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
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
		br := bufio.NewReaderSize(resp.Body, 64<<10)
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
