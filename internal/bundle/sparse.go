package bundle

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// sparseChunk is the granularity of hole punching: an aligned chunk of
// this many zero bytes is skipped instead of written.
const sparseChunk = 64 << 10

// zeroChunk is compared against to find all-zero chunks.
var zeroChunk = make([]byte, sparseChunk)

// writerAtTruncater is what holeWriter writes to: an *os.File, or an
// fdFile in the extraction's writers.
type writerAtTruncater interface {
	io.WriterAt
	Truncate(size int64) error
}

// holeWriter writes a new, empty file's contents in order, leaving holes
// for aligned all-zero chunks: a skipped chunk costs no system call, and
// a file ending in a hole gets its length from one Truncate in finish.
type holeWriter struct {
	f    writerAtTruncater
	off  int64 // bytes written or skipped so far
	hole bool  // the last chunk was skipped
}

// write writes p at the current offset, which must be a multiple of
// sparseChunk unless p is the file's last piece.
func (w *holeWriter) write(p []byte) error {
	for len(p) > 0 {
		chunk := p[:min(len(p), sparseChunk)]
		if len(chunk) == sparseChunk && bytes.Equal(chunk, zeroChunk) {
			w.hole = true
		} else {
			if _, err := w.f.WriteAt(chunk, w.off); err != nil {
				return err
			}
			w.hole = false
		}
		w.off += int64(len(chunk))
		p = p[len(chunk):]
	}
	return nil
}

// finish sets the file's length if it ends in a hole.
func (w *holeWriter) finish() error {
	if !w.hole {
		return nil
	}
	if err := w.f.Truncate(w.off); err != nil {
		return fmt.Errorf("setting length: %w", err)
	}
	return nil
}

// writeSparse copies exactly size bytes from r to the new, empty file f,
// leaving holes for aligned all-zero chunks. buf must hold at least
// sparseChunk bytes. It returns the number of bytes copied.
func writeSparse(f *os.File, r io.Reader, size int64, buf []byte) (int64, error) {
	buf = buf[:sparseChunk]
	w := holeWriter{f: f}
	for w.off < size {
		chunk := buf[:min(int64(len(buf)), size-w.off)]
		n, err := io.ReadFull(r, chunk)
		if err != nil {
			return w.off + int64(n), readErr(err)
		}
		if err := w.write(chunk); err != nil {
			return w.off, err
		}
	}
	return w.off, w.finish()
}

// readErr turns an early end of a tar entry into ErrTruncated.
func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return tagf(ErrTruncated, "tar entry ends early")
	}
	return err
}
