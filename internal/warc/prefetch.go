package warc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
)

// Speculative parallel inflation of the gzip members of a file.
//
// A prefetcher splits the compressed file into chunks of chunkSize bytes
// and hands them, in order, to worker goroutines. A worker finds the gzip
// members that start in its chunk (a candidate is a gzip magic followed by
// a flags byte with no reserved bit; after a member, the next candidate is
// searched from its end) and inflates each into memory, keeping it only if
// the gzip reader verified it to its end (CRC-32 and ISIZE). The
// gunzipStream, reading the file in order, asks for the member starting
// exactly at its current compressed offset: a verified member starting
// there is the very member it would have inflated itself (same bytes, same
// end), so it takes its output; anywhere else (garbage, a damaged member,
// a member too large to hold, a rewind) it inflates sequentially as
// before. So the results are the sequential reader's, byte for byte, with
// the inflation spread over the cores. At most window chunks are in flight
// and each keeps at most chunkBudget decompressed bytes, so memory does
// not grow with the file.

const (
	// defaultChunkSize is the compressed bytes of the first chunks; later
	// ones aim at chunkTarget decompressed bytes, at the compression
	// ratio seen so far, within [minChunkSize, maxChunkSize].
	defaultChunkSize = 1 << 20
	chunkTarget      = 2 << 20
	minChunkSize     = 64 << 10
	maxChunkSize     = 2 << 20
	// defaultChunkBudget bounds the decompressed bytes one chunk keeps; the
	// members beyond it are inflated sequentially.
	defaultChunkBudget = 16 << 20
	// memberCost is what a kept member costs beside its output (its spec
	// and map entry, rounded up), so that members decompressing to
	// nothing are not free: a file of millions of empty members cannot
	// grow memory past the budget.
	memberCost = 512
	// maxChunkMembers bounds the members one chunk keeps, and maxMisses the
	// candidate magics in it that turn out not to start a member (gzip
	// headers planted in stored data, say): past either, the rest of the
	// chunk is left to the sequential reader, which reads it once anyway.
	maxChunkMembers = 4096
	maxMisses       = 64
)

// chunkBudget is defaultChunkBudget; tests lower it.
var chunkBudget int64 = defaultChunkBudget

// spec is one member inflated ahead: compressed range [start, end), output.
type spec struct {
	start, end int64
	data       []byte
}

// part is one chunk: the members starting in compressed range [start, end).
type part struct {
	start, end int64
	members    map[int64]*spec
	done       chan struct{}
}

// prefetcher inflates the members of ra ahead of the reader.
type prefetcher struct {
	ra        io.ReaderAt
	size      int64
	chunkSize int64        // 0: adaptive
	in, out   atomic.Int64 // compressed and decompressed bytes of the chunks filled

	order chan *part // chunks in file order, for the consumer
	work  chan *part // chunks to fill, for the workers
	quit  chan struct{}
	wg    sync.WaitGroup

	freeMu    sync.Mutex
	free      [][]byte // output buffers of members consumed, for reuse
	freeBytes int      // their capacity
	cur       *part    // the consumer's current chunk, nil before the first
	ended     bool     // every chunk consumed
	hits      int      // members taken from the workers, for tests
}

// newPrefetcher starts workers goroutines inflating ra's members, with
// window chunks in flight, of chunkSize bytes (0: adaptive).
func newPrefetcher(ra io.ReaderAt, size, chunkSize int64, workers int) *prefetcher {
	workers = max(workers, 1)
	window := workers + 2
	p := &prefetcher{ra: ra, size: size, chunkSize: max(chunkSize, 0),
		order: make(chan *part, window), work: make(chan *part, window),
		quit: make(chan struct{})}
	p.wg.Add(workers + 1)
	go p.dispatch()
	for range workers {
		go p.worker()
	}
	return p
}

// dispatch queues the chunks in order; the order channel's capacity is the
// window, since the consumer releases a chunk by receiving the next.
func (p *prefetcher) dispatch() {
	defer p.wg.Done()
	defer close(p.work)
	defer close(p.order)
	for start, n := int64(0), int64(0); start < p.size; start += n {
		n = p.nextSize()
		c := &part{start: start, end: min(start+n, p.size), done: make(chan struct{})}
		select {
		case p.order <- c:
		case <-p.quit:
			return
		}
		select {
		case p.work <- c:
		case <-p.quit:
			return
		}
	}
}

// nextSize returns the size of the next chunk.
func (p *prefetcher) nextSize() int64 {
	if p.chunkSize > 0 {
		return p.chunkSize
	}
	in, out := p.in.Load(), p.out.Load()
	if out == 0 {
		return defaultChunkSize
	}
	return min(max(int64(float64(chunkTarget)*float64(in)/float64(out)), minChunkSize), maxChunkSize)
}

func (p *prefetcher) worker() {
	defer p.wg.Done()
	w := &inflater{src: atReader{ra: p.ra, size: p.size}, pf: p}
	for c := range p.work {
		out := w.fill(c, p.quit)
		p.in.Add(c.end - c.start)
		p.out.Add(out)
		close(c.done)
	}
}

// member returns the verified member starting at compressed offset off, if
// one was inflated ahead. Offsets must not decrease except by a rewind,
// after which nothing before the current chunk is found again.
func (p *prefetcher) member(off int64) (*spec, bool) {
	for !p.ended && (p.cur == nil || off >= p.cur.end) {
		c, ok := <-p.order
		if !ok {
			p.cur, p.ended = nil, true
			break
		}
		p.cur = c
	}
	c := p.cur
	if c == nil || off < c.start {
		return nil, false
	}
	<-c.done
	s, ok := c.members[off]
	if ok {
		delete(c.members, off) // the consumer takes it; release its memory with it
		p.hits++
	}
	return s, ok
}

// close stops the workers and waits for them.
func (p *prefetcher) close() {
	select {
	case <-p.quit:
		return
	default:
	}
	close(p.quit)
	for range p.order { // unblock dispatch
	}
	p.wg.Wait()
	p.freeMu.Lock()
	defer p.freeMu.Unlock()
	for _, b := range p.free[:min(len(p.free), keepOnClose)] { // for the next reader; the rest is garbage now
		bufs.Put(&b)
	}
	p.free, p.freeBytes = nil, 0
}

// keepOnClose is how many of its buffers a closed reader leaves in the
// pool for the next.
const keepOnClose = 4

// inflater is one worker's state, reused across chunks.
type inflater struct {
	src atReader
	br  *bufio.Reader
	zr  *gzip.Reader
	pf  *prefetcher // for output buffers
}

// fill inflates the members starting in c and returns their decompressed
// size. What it keeps is bounded by chunkBudget (outputs' capacity plus
// memberCost each), maxChunkMembers and maxMisses.
func (w *inflater) fill(c *part, quit <-chan struct{}) (out int64) {
	c.members = map[int64]*spec{}
	budget, misses := chunkBudget, 0
	for pos := c.start; pos < c.end && budget > 0 && len(c.members) < maxChunkMembers && misses < maxMisses; {
		select {
		case <-quit:
			return out
		default:
		}
		start, ok := w.src.findMagic(pos, c.end)
		if !ok {
			break
		}
		s, ok := w.inflate(start, budget)
		if !ok {
			misses++
			pos = start + 1
			continue
		}
		c.members[start] = s
		budget -= int64(cap(s.data)) + memberCost
		out += int64(len(s.data))
		pos = s.end
	}
	return out
}

// inflate reads the member at start, keeping it if it is verified to its
// end within limit bytes of output.
func (w *inflater) inflate(start, limit int64) (*spec, bool) {
	w.src.pos = start
	if w.br == nil {
		w.br = bufio.NewReaderSize(&w.src, 32<<10)
	} else {
		w.br.Reset(&w.src)
	}
	var err error
	if w.zr == nil {
		w.zr, err = gzip.NewReader(w.br)
	} else {
		err = w.zr.Reset(w.br)
	}
	if err != nil {
		return nil, false
	}
	w.zr.Multistream(false)
	data, err := readCapped(w.zr, w.pf.get(), limit)
	if err != nil {
		w.pf.put(data)
		return nil, false
	}
	end := w.src.pos - int64(w.br.Buffered())
	if len(data) < cap(data)/4 { // a small member keeps a small copy; the buffer goes back
		small := bytes.Clone(data)
		w.pf.put(data)
		data = small
	}
	return &spec{start: start, end: end, data: data}, true
}

// errTooLarge stops inflating a member ahead past the chunk's budget.
var errTooLarge = errors.New("member larger than the budget")

// readCapped reads r to its end into buf, grown by doubling but never
// beyond limit + 1 bytes (a buffer growing past what is kept would cost
// twice the limit for nothing); more than limit bytes is errTooLarge.
func readCapped(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf, errTooLarge
			}
			grown := make([]byte, len(buf), min(int64(max(2*cap(buf), minBuf)), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF && int64(len(buf)) > limit:
			return buf, errTooLarge
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// get returns an output buffer for a member: one a consumed member left,
// else a new one. Reusing them spares growing a buffer (allocating,
// clearing and copying) for every member. The reader keeps up to maxFree
// bytes of them, which a garbage collection does not take away; others
// go to a pool shared by all readers.
func (p *prefetcher) get() []byte {
	p.freeMu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		p.freeBytes -= cap(b)
		p.freeMu.Unlock()
		return b[:0]
	}
	p.freeMu.Unlock()
	if b, ok := bufs.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, minBuf)
}

// put keeps a buffer for reuse: one of get's own size or more (not the
// copy a small member keeps) while maxFree allows, else in the pool.
func (p *prefetcher) put(b []byte) {
	if cap(b) > 4*chunkTarget {
		return
	}
	p.freeMu.Lock()
	if cap(b) >= minBuf && p.freeBytes+cap(b) <= maxFree {
		p.free = append(p.free, b)
		p.freeBytes += cap(b)
		p.freeMu.Unlock()
		return
	}
	p.freeMu.Unlock()
	bufs.Put(&b)
}

const (
	// minBuf is the size of a new output buffer.
	minBuf = 256 << 10
	// maxFree bounds the bytes of the buffers a reader keeps for reuse.
	maxFree = 32 << 20
)

// bufs is the pool of output buffers shared by all readers.
var bufs sync.Pool

// atReader reads ra from pos through a window buffer, so the members of a
// chunk cost one read of its bytes.
type atReader struct {
	ra      io.ReaderAt
	size    int64
	pos     int64
	buf     []byte
	bufOff  int64
	bufSize int
}

const atWindow = 256 << 10

// load fills the window at off.
func (a *atReader) load(off int64) error {
	if a.buf == nil {
		a.buf = make([]byte, atWindow)
	}
	n, err := a.ra.ReadAt(a.buf[:min(int64(len(a.buf)), a.size-off)], off)
	a.bufOff, a.bufSize = off, n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.EOF
	}
	return err
}

// window returns the buffered bytes from pos, loading them if needed.
func (a *atReader) window() ([]byte, error) {
	if a.pos >= a.size {
		return nil, io.EOF
	}
	if a.pos < a.bufOff || a.pos >= a.bufOff+int64(a.bufSize) {
		if err := a.load(a.pos); err != nil {
			return nil, err
		}
	}
	return a.buf[a.pos-a.bufOff : a.bufSize], nil
}

func (a *atReader) Read(p []byte) (int, error) {
	b, err := a.window()
	if err != nil {
		return 0, err
	}
	n := copy(p, b)
	a.pos += int64(n)
	return n, nil
}

// findMagic returns the first offset in [from, to) where a gzip member may
// start: the magic and a flags byte without reserved bits. A magic whose
// flags byte lies past the end of the input is left to the reader.
func (a *atReader) findMagic(from, to int64) (int64, bool) {
	const need = 4 // magic and flags
	for pos := from; pos < to; {
		a.pos = pos
		b, err := a.window()
		if err != nil {
			return 0, false
		}
		if len(b) < need && pos+int64(len(b)) < a.size {
			// A candidate may straddle the window's end: reload here.
			if err := a.load(pos); err != nil || a.bufSize < need {
				return 0, false
			}
			continue
		}
		b = b[:min(int64(len(b)), to-pos+need-1)]
		i := bytes.Index(b, gzipMagic)
		switch {
		case i < 0:
			pos += int64(max(len(b)-need+1, 1)) // keep a magic's first bytes
		case pos+int64(i) >= to:
			return 0, false
		case i+need <= len(b):
			if b[i+need-1]&0xe0 == 0 {
				return pos + int64(i), true
			}
			pos += int64(i) + 1
		default: // the flags byte is past the window or the input
			if pos+int64(i+need) > a.size {
				return 0, false
			}
			pos += int64(i)
			if err := a.load(pos); err != nil || a.bufSize < need {
				return 0, false
			}
		}
	}
	return 0, false
}
