package bundle

import (
	"errors"
	"io"
	"sync"
)

// stageChunk is the size of the buffers a stage hands over.
const stageChunk = 256 << 10

// stageBuffers is how many buffers a stage owns: one being filled, the
// others queued or being written.
const stageBuffers = 3

// errStageClosed is what writing to a closed stage returns.
var errStageClosed = errors.New("bundle: write to a closed stage")

// stage is an io.Writer whose bytes another goroutine writes to w, in
// order and in chunks of stageChunk, so that whoever writes to the stage
// (reading and packing files, say) and whatever w does (compressing,
// encrypting) run in parallel, like the processes of a shell pipeline.
// Memory is bounded by stageBuffers chunks. The first error of w is
// returned by the next Write and by Close; the goroutine then drops
// whatever follows. A stage is not safe for concurrent writes.
type stage struct {
	buf  []byte
	full chan []byte
	free chan []byte
	done chan struct{}

	mu     sync.Mutex
	err    error // w's first error
	closed bool
}

// newStage starts the goroutine writing to w.
func newStage(w io.Writer) *stage {
	s := &stage{full: make(chan []byte, stageBuffers), free: make(chan []byte, stageBuffers), done: make(chan struct{})}
	for range stageBuffers - 1 {
		s.free <- make([]byte, 0, stageChunk)
	}
	s.buf = make([]byte, 0, stageChunk)
	go s.run(w)
	return s
}

func (s *stage) run(w io.Writer) {
	defer close(s.done)
	for b := range s.full {
		if s.failed() == nil {
			if _, err := w.Write(b); err != nil {
				s.fail(err)
			}
		}
		s.free <- b[:0]
	}
}

func (s *stage) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *stage) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// Write queues p for w.
func (s *stage) Write(p []byte) (int, error) {
	if s.closed {
		return 0, errStageClosed
	}
	if err := s.failed(); err != nil {
		return 0, err
	}
	n := 0
	for len(p) > 0 {
		k := copy(s.buf[len(s.buf):cap(s.buf)], p)
		s.buf, p, n = s.buf[:len(s.buf)+k], p[k:], n+k
		if len(s.buf) == cap(s.buf) {
			s.full <- s.buf
			s.buf = <-s.free
		}
	}
	return n, nil
}

// Close writes what is queued, stops the goroutine and returns w's first
// error. It does not close w. Calling it again returns the same error.
func (s *stage) Close() error {
	if !s.closed {
		s.closed = true
		if len(s.buf) > 0 {
			s.full <- s.buf
			s.buf = nil
		}
		close(s.full)
		<-s.done
	}
	return s.failed()
}
