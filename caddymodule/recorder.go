package caddymodule

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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

// Reasons a held response stops being held and goes on unchanged.
const (
	spillTooLarge = "too_large" // its body passed the limit
	spillStreamed = "streamed"  // the upstream flushed, then stayed silent for idle
)

// recorder is the http.ResponseWriter the next handler writes to. At the
// final WriteHeader, hold says whether the response stays here (status,
// headers and body) for the module to look at; any other response goes
// on to the client as it comes, unchanged. A held response stops being
// held — the status, the headers and what was held go on, then the rest
// as it comes — when its body passes limit bytes, so memory stays bounded
// whatever the upstream sends, or when the upstream flushed and then
// wrote nothing for idle: it is streaming (a report's progress, a page
// of events), and the client sees what it flushed without waiting for
// the end.
//
// Until the response goes on, its headers are the recorder's own copy of
// the client's header map, so a held response can be dropped without a
// trace; once it goes on, Header returns the client's map itself, so
// trailers set after the body still reach the client.
//
// mu serializes the next handler's calls and the idle timer's; the
// module's own calls (finish, release, respond) come after the next
// handler returned and finish stopped the timer.
type recorder struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	hdr     http.Header
	hold    func(status int, hdr http.Header) bool
	limit   int64
	idle    time.Duration       // 0: held until the end whatever the flushes
	spilled func(reason string) // told when a held response goes on unchanged
	buf     *bytes.Buffer
	status  int
	held    bool        // the response stays here
	sent    bool        // status and headers went to w
	heldHdr http.Header // the headers as held, for the idle timer
	timer   *time.Timer // armed after a flush of held bytes
	done    bool        // the next handler returned
}

// newRecorder returns a recorder in front of w holding at most limit
// bytes of the responses hold selects.
func newRecorder(w http.ResponseWriter, limit int64, hold func(int, http.Header) bool) *recorder {
	return &recorder{w: w, hdr: w.Header().Clone(), hold: hold, limit: limit, buf: getBuffer()}
}

// free returns the body buffer to the pool; the recorder is done, also
// when the next handler panicked (http.ErrAbortHandler): the idle timer
// is stopped first.
func (r *recorder) free() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop()
	putBuffer(r.buf)
	r.buf = nil
}

// stop ends the next handler's turn: the idle timer will not fire. The
// caller holds r.mu.
func (r *recorder) stop() {
	r.done = true
	if r.timer != nil {
		r.timer.Stop()
	}
}

// Header returns the response's header map.
func (r *recorder) Header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent {
		return r.w.Header()
	}
	return r.hdr
}

// WriteHeader records the status and decides whether to hold the
// response. Informational (1xx) responses go on at once.
func (r *recorder) WriteHeader(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writeHeader(status)
}

func (r *recorder) writeHeader(status int) {
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
		r.send(r.hdr)
	} else if r.idle > 0 {
		r.heldHdr = r.hdr.Clone() // the header section is complete now; only trailers may follow
	}
}

// send writes the status and hdr to the client.
func (r *recorder) send(hdr http.Header) {
	copyHeader(r.w.Header(), hdr)
	r.sent = true
	r.w.WriteHeader(r.status)
}

// Write holds p, or sends it on.
func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.write(p)
}

func (r *recorder) write(p []byte) (int, error) {
	if r.status == 0 {
		r.writeHeader(http.StatusOK)
	}
	if r.timer != nil {
		r.timer.Stop() // not silent: the next flush arms it again
	}
	if r.held && int64(r.buf.Len()+len(p)) > r.limit {
		r.spill(spillTooLarge, r.hdr)
	}
	if r.held {
		return r.buf.Write(p)
	}
	return r.w.Write(p)
}

// spill stops holding: the status, hdr and the body so far go on.
func (r *recorder) spill(reason string, hdr http.Header) {
	r.held = false
	if r.spilled != nil {
		r.spilled(reason)
	}
	r.send(hdr)
	r.w.Write(r.buf.Bytes())
	r.buf.Reset()
	if r.buf.Cap() > maxPooledBuffer {
		r.buf = new(bytes.Buffer) // the grown one is garbage now, not kept for the stream's life
	}
}

// ReadFrom copies src into the response, with the client's ReadFrom
// (sendfile) when the response goes straight on.
func (r *recorder) ReadFrom(src io.Reader) (int64, error) {
	r.mu.Lock()
	if r.status == 0 {
		r.writeHeader(http.StatusOK)
	}
	held := r.held
	r.mu.Unlock()
	if held {
		return io.Copy(writerOnly{r}, src)
	}
	if rf, ok := r.w.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(r.w, src)
}

// FlushError flushes a response that goes straight on. A held one is not
// sent yet; if it holds body bytes, the flush arms the idle timer: should
// the upstream stay silent for idle, the response goes on, streamed.
func (r *recorder) FlushError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held {
		r.armIdle()
		return nil
	}
	if !r.sent {
		return nil
	}
	return http.NewResponseController(r.w).Flush()
}

// armIdle starts (or restarts) the idle timer after a flush of held bytes.
func (r *recorder) armIdle() {
	switch {
	case r.idle <= 0 || r.buf.Len() == 0 || r.done:
	case r.timer == nil:
		r.timer = time.AfterFunc(r.idle, r.idleTimeout)
	default:
		r.timer.Reset(r.idle)
	}
}

// idleTimeout sends a held response on, streamed: the upstream flushed
// and has written nothing since.
func (r *recorder) idleTimeout() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || !r.held {
		return
	}
	r.spill(spillStreamed, r.heldHdr)
	http.NewResponseController(r.w).Flush()
}

// Unwrap returns the client's writer, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }

// finish ends the next handler's turn: the idle timer is stopped, and a
// response that wrote nothing is an empty 200, decided like any other.
func (r *recorder) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop()
	if r.status == 0 {
		r.writeHeader(http.StatusOK)
	}
}

// failed passes the next handler's error on; headers it set for the error response
// (Allow, WWW-Authenticate, …) go to the client with it.
func (r *recorder) failed(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop()
	if !r.sent {
		copyHeader(r.w.Header(), r.hdr)
	}
	return err
}

// release sends a held response on unchanged.
func (r *recorder) release() error {
	return r.answer(r.status, r.buf.Bytes(), false, true)
}

// respond sends status with the held headers and body instead of what
// was held: Content-Length set, no trailers (they were the upstream's,
// for its body), and no body for HEAD or a bodiless status.
func (r *recorder) respond(status int, body []byte, head bool) error {
	return r.answer(status, body, head, false)
}

// answer sends status, the held headers and body (none for HEAD, 304 or
// 412). The upstream's trailers go on as trailers when keep is set and
// the body is sent (announced in the Trailer header, their values set
// after the body), else they are dropped, never sent as headers.
func (r *recorder) answer(status int, body []byte, head, keep bool) error {
	r.held = false
	r.status = status
	trailers := takeTrailers(r.hdr)
	bodiless := status == http.StatusNotModified || status == http.StatusPreconditionFailed
	keep = keep && len(trailers) > 0 && !bodiless && !head && len(body) > 0
	switch {
	case bodiless:
		r.hdr.Del("Content-Length")
		r.hdr.Del("Content-Type")
		body = nil
	case keep: // chunked, so the trailers can follow
		r.hdr.Del("Content-Length")
		for _, k := range slices.Sorted(maps.Keys(trailers)) {
			r.hdr.Add("Trailer", k)
		}
	default:
		r.hdr.Set("Content-Length", strconv.Itoa(len(body)))
	}
	r.send(r.hdr)
	if head || len(body) == 0 {
		return nil
	}
	_, err := r.w.Write(body)
	if keep {
		maps.Copy(r.w.Header(), trailers)
	}
	return err
}

// takeTrailers removes the trailers of a held response from hdr and
// returns them: the fields the Trailer header announced, those set with
// http.TrailerPrefix, and the Trailer header itself.
func takeTrailers(hdr http.Header) http.Header {
	out := http.Header{}
	for _, v := range hdr.Values("Trailer") {
		for name := range strings.SplitSeq(v, ",") {
			if k := http.CanonicalHeaderKey(strings.TrimSpace(name)); k != "" && hdr[k] != nil {
				out[k] = hdr[k]
				delete(hdr, k)
			}
		}
	}
	for k, v := range hdr {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			out[http.CanonicalHeaderKey(name)] = v
			delete(hdr, k)
		}
	}
	delete(hdr, "Trailer")
	return out
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
