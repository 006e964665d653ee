package caddymodule

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"strconv"
	"sync"
)

// maxPooledBuffer is the largest buffer kept in bufPool for the next
// request; larger ones, grown by a large page, are left to the garbage
// collector. It covers every page that can carry blocks (MaxPageBytes).
const maxPooledBuffer = 1 << 20

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// getBuffer returns an empty buffer from the pool.
func getBuffer() *bytes.Buffer {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

// putBuffer returns buf to the pool unless it grew past maxPooledBuffer.
func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		bufPool.Put(buf)
	}
}

// recorder is the http.ResponseWriter the next handler writes to. At the
// final WriteHeader, hold says whether the response stays here (status,
// headers and body) for the module to look at; any other response goes
// on to the client as it comes, unchanged. A held body is kept only up to
// limit bytes: past that the recorder gives up holding and sends the
// status, the headers, what it held and the rest straight on, so memory
// stays bounded whatever the upstream sends (a body of unknown length, or
// one longer than its Content-Length said).
//
// Until the response goes on, its headers are the recorder's own copy of
// the client's header map, so a held response can be dropped without a
// trace; once it goes on, Header returns the client's map itself, so
// trailers set after the body still reach the client.
type recorder struct {
	w       http.ResponseWriter
	hdr     http.Header
	hold    func(status int, hdr http.Header) bool
	limit   int64
	spilled func() // told when a held body passes limit
	buf     *bytes.Buffer
	status  int
	held    bool // the response stays here
	sent    bool // status and headers went to w
}

// newRecorder returns a recorder in front of w holding at most limit
// bytes of the responses hold selects.
func newRecorder(w http.ResponseWriter, limit int64, hold func(int, http.Header) bool) *recorder {
	return &recorder{w: w, hdr: w.Header().Clone(), hold: hold, limit: limit, buf: getBuffer()}
}

// free returns the body buffer to the pool; the recorder is done.
func (r *recorder) free() {
	putBuffer(r.buf)
	r.buf = nil
}

// Header returns the response's header map.
func (r *recorder) Header() http.Header {
	if r.sent {
		return r.w.Header()
	}
	return r.hdr
}

// WriteHeader records the status and decides whether to hold the
// response. Informational (1xx) responses go on at once.
func (r *recorder) WriteHeader(status int) {
	if r.status != 0 {
		return
	}
	if status >= 100 && status <= 199 {
		copyHeader(r.w.Header(), r.hdr)
		r.w.WriteHeader(status)
		return
	}
	r.status = status
	if r.held = r.hold(status, r.hdr); !r.held {
		r.send()
	}
}

// send writes the status and headers to the client.
func (r *recorder) send() {
	copyHeader(r.w.Header(), r.hdr)
	r.sent = true
	r.w.WriteHeader(r.status)
}

// Write holds p, or sends it on.
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.held && int64(r.buf.Len()+len(p)) > r.limit {
		r.spill()
	}
	if r.held {
		return r.buf.Write(p)
	}
	return r.w.Write(p)
}

// spill stops holding: the status, headers and the body so far go on.
func (r *recorder) spill() {
	r.held = false
	if r.spilled != nil {
		r.spilled()
	}
	r.send()
	r.w.Write(r.buf.Bytes())
	r.buf = new(bytes.Buffer) // the grown one is garbage now, not kept for the stream's life
}

// ReadFrom copies src into the response, with the client's ReadFrom
// (sendfile) when the response goes straight on.
func (r *recorder) ReadFrom(src io.Reader) (int64, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.held {
		return io.Copy(writerOnly{r}, src)
	}
	if rf, ok := r.w.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(r.w, src)
}

// FlushError flushes a response that goes straight on; a held one is not
// flushed (it is not sent yet).
func (r *recorder) FlushError() error {
	if r.held || !r.sent {
		return nil
	}
	return http.NewResponseController(r.w).Flush()
}

// Unwrap returns the client's writer, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }

// finish ends the next handler's turn: a response that wrote nothing is
// an empty 200, decided like any other.
func (r *recorder) finish() {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
}

// failed passes the next handler's error on; headers it set for the error response
// (Allow, WWW-Authenticate, …) go to the client with it.
func (r *recorder) failed(err error) error {
	if !r.sent {
		copyHeader(r.w.Header(), r.hdr)
	}
	return err
}

// release sends a held response on unchanged.
func (r *recorder) release() error {
	r.held = false
	r.send()
	_, err := r.w.Write(r.buf.Bytes())
	return err
}

// respond sends status with the held headers and body instead of what
// was held: Content-Length set, and no body for HEAD or a bodiless status.
func (r *recorder) respond(status int, body []byte, head bool) error {
	r.held = false
	r.status = status
	if status == http.StatusNotModified || status == http.StatusPreconditionFailed {
		r.hdr.Del("Content-Length")
		r.hdr.Del("Content-Type")
		body = nil
	} else {
		r.hdr.Set("Content-Length", strconv.Itoa(len(body)))
	}
	r.send()
	if head || len(body) == 0 {
		return nil
	}
	_, err := r.w.Write(body)
	return err
}

// copyHeader makes dst equal to src.
func copyHeader(dst, src http.Header) {
	for k := range dst {
		if _, ok := src[k]; !ok {
			delete(dst, k)
		}
	}
	maps.Copy(dst, src)
}

// writerOnly hides every method of a writer but Write, so io.Copy does
// not call back into ReadFrom.
type writerOnly struct{ io.Writer }

// Interface guards.
var (
	_ http.ResponseWriter = (*recorder)(nil)
	_ io.ReaderFrom       = (*recorder)(nil)
)
