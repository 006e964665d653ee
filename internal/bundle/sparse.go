package bundle

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// sparseChunk is the granularity of hole punching: an aligned chunk of
// this many zero bytes is skipped with Seek instead of written.
const sparseChunk = 64 << 10

// zeroChunk is compared against to find all-zero chunks.
var zeroChunk = make([]byte, sparseChunk)

// writeSparse copies exactly size bytes from r to the new, empty file f,
// leaving holes for aligned all-zero chunks, and sets the final length
// with Truncate. buf must hold at least sparseChunk bytes. It returns the
// number of bytes copied.
func writeSparse(f *os.File, r io.Reader, size int64, buf []byte) (int64, error) {
	buf = buf[:sparseChunk]
	var done int64
	for done < size {
		chunk := buf[:min(int64(len(buf)), size-done)]
		n, err := io.ReadFull(r, chunk)
		if err != nil {
			return done + int64(n), readErr(err)
		}
		if err := writeOrSkip(f, chunk); err != nil {
			return done, err
		}
		done += int64(n)
	}
	if err := f.Truncate(size); err != nil {
		return done, fmt.Errorf("setting length: %w", err)
	}
	return done, nil
}

// writeOrSkip writes chunk, or seeks over it if it is a whole zero chunk.
func writeOrSkip(f *os.File, chunk []byte) error {
	if len(chunk) == sparseChunk && bytes.Equal(chunk, zeroChunk) {
		_, err := f.Seek(sparseChunk, io.SeekCurrent)
		return err
	}
	_, err := f.Write(chunk)
	return err
}

// readErr turns an early end of a tar entry into ErrTruncated.
func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return tagf(ErrTruncated, "tar entry ends early")
	}
	return err
}
