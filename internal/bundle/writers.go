package bundle

import (
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Writing files on several goroutines.
//
// The tar reader (the goroutine running Extract) validates every entry,
// keeps the tree and creates directories and links in tar order; it
// reads each regular file's contents into buffers and hands the file to
// a pool of writers, which create it in its parent's open handle, write
// it, set its mode and time and close it. The reader goes on with the
// next entry meanwhile. Memory is bounded by maxChunks buffers of
// writeChunk bytes; the reader waits for a free one. Every file is one
// job numbered in tar order; when several fail, the lowest number wins,
// so the error is the one a sequential extraction would have returned.

const (
	// writeChunk is the size of the buffers a file's contents travel in;
	// a multiple of sparseChunk, so chunks stay aligned for holes.
	writeChunk = 256 << 10
	// maxChunks bounds the buffers in flight (8 MiB).
	maxChunks = 32
	// defaultWriters is ExtractOptions.Writers' default.
	defaultWriters = 4
)

// fileJob is one regular file for a writer.
type fileJob struct {
	seq   int // entry number in the tar stream
	name  string
	dir   *dirHandle // held until the job is done
	base  string
	mode  fs.FileMode
	mtime time.Time
	owner owner
	first []byte      // the first chunk (all of a small file)
	more  chan []byte // the other chunks, closed after the last; nil if none
	// aborted is set before more is closed when the reader failed in
	// the middle of the contents: the file is dropped, not reported.
	aborted atomic.Bool
}

// chunks returns the channel of the chunks after the first: a closed one
// if there are none.
func (j *fileJob) chunks() <-chan []byte {
	if j.more == nil {
		return closed
	}
	return j.more
}

// closed is a closed channel of chunks.
var closed = func() chan []byte {
	c := make(chan []byte)
	close(c)
	return c
}()

// writers is the pool of goroutines writing regular files.
type writers struct {
	jobs    chan *fileJob
	free    chan []byte
	made    int            // buffers allocated (reader only)
	pending sync.WaitGroup // jobs not finished
	done    sync.WaitGroup // writer goroutines

	failed atomic.Bool
	mu     sync.Mutex
	err    error // error of the lowest-numbered failed job
	errSeq int
}

// newWriters starts n writer goroutines.
func newWriters(n int) *writers {
	w := &writers{jobs: make(chan *fileJob, maxChunks), free: make(chan []byte, maxChunks)}
	w.done.Add(n)
	for range n {
		go w.run()
	}
	return w
}

func (w *writers) run() {
	defer w.done.Done()
	for j := range w.jobs {
		if err := w.write(j); err != nil {
			w.fail(j.seq, err)
		}
		j.dir.release()
		w.pending.Done()
	}
}

// write creates and fills one file, then sets its metadata. The chunks
// are always all received and given back, even after an error.
func (w *writers) write(j *fileJob) error {
	f, err := createAt(j.dir, j.base, j.name)
	if err != nil {
		w.drain(j)
		return fmt.Errorf("creating %q: %w", j.name, err)
	}
	hw := holeWriter{f: f}
	err = hw.write(j.first)
	w.put(j.first)
	for c := range j.chunks() {
		if err == nil {
			err = hw.write(c)
		}
		w.put(c)
	}
	if err == nil && !j.aborted.Load() {
		err = hw.finish()
	}
	if err != nil {
		err = fmt.Errorf("writing %q: %w", j.name, err)
	} else if !j.aborted.Load() {
		j.owner.set(func(uid, gid int) error { return unix.Fchown(f.fd, uid, gid) }) // before the mode: chown clears setuid
		err = f.setMeta(j.dir, j.base, j.mode, j.mtime)
	}
	if cerr := f.close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %q: %w", j.name, cerr)
	}
	if j.aborted.Load() {
		return nil
	}
	return err
}

// drain gives back every chunk of a job that will not be written.
func (w *writers) drain(j *fileJob) {
	w.put(j.first)
	for c := range j.chunks() {
		w.put(c)
	}
}

// fail records err for job seq if no earlier job failed.
func (w *writers) fail(seq int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil || seq < w.errSeq {
		w.err, w.errSeq = err, seq
	}
	w.failed.Store(true)
}

// buffer returns a free chunk buffer, waiting for one when maxChunks are
// in flight. Reader only.
func (w *writers) buffer() []byte {
	select {
	case b := <-w.free:
		return b
	default:
	}
	if w.made < maxChunks {
		w.made++
		return make([]byte, writeChunk)
	}
	return <-w.free
}

// put gives a buffer back.
func (w *writers) put(b []byte) {
	if b != nil {
		w.free <- b[:cap(b)]
	}
}

// send reads a file of size bytes from r and queues it; the job's
// directory handle is released once the job is done. On a read error the
// file is dropped and the error returned. Reader only.
func (w *writers) send(j *fileJob, r io.Reader, size int64) error {
	if size > 0 {
		j.first = w.buffer()[:min(size, writeChunk)]
		if _, err := io.ReadFull(r, j.first); err != nil {
			w.put(j.first)
			j.dir.release()
			return readErr(err)
		}
	}
	rest := size - int64(len(j.first))
	if rest > 0 {
		j.more = make(chan []byte, maxChunks)
	}
	w.pending.Add(1)
	w.jobs <- j
	for rest > 0 {
		c := w.buffer()[:min(rest, writeChunk)]
		if _, err := io.ReadFull(r, c); err != nil {
			w.put(c)
			j.aborted.Store(true)
			close(j.more)
			return readErr(err)
		}
		j.more <- c
		rest -= int64(len(c))
	}
	if j.more != nil {
		close(j.more)
	}
	return nil
}

// wait returns once every job queued so far is done.
func (w *writers) wait() { w.pending.Wait() }

// close stops the writers once their jobs are done.
func (w *writers) close() {
	close(w.jobs)
	w.done.Wait()
}

// firstErr returns the number and error of the lowest-numbered failed
// job; the error is nil if none failed.
func (w *writers) firstErr() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errSeq, w.err
}
