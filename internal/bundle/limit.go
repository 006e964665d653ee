package bundle

import (
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// exactReader passes on exactly size bytes of the decompressed stream r.
// It never asks r for more than it may still return, so decompression is
// bounded by the declared size; once size bytes were read, it reads one
// more byte to tell a clean end (io.EOF) from excess data (ErrBomb). An
// early end is ErrTruncated. The first error is sticky.
type exactReader struct {
	r         io.Reader
	size      int64 // declared total
	remaining int64
	err       error
}

func newExactReader(r io.Reader, size int64) *exactReader {
	return &exactReader{r: r, size: size, remaining: size}
}

func (l *exactReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.remaining == 0 {
		return 0, l.atEnd()
	}
	if int64(len(p)) > l.remaining {
		p = p[:l.remaining]
	}
	n, err := l.r.Read(p)
	l.remaining -= int64(n)
	switch {
	case err == io.EOF && l.remaining > 0:
		l.err = l.truncated()
	case err != nil && err != io.EOF:
		l.err = l.classify(err)
	}
	return n, l.err
}

// classify wraps a decompression error in the matching sentinel.
func (l *exactReader) classify(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && l.remaining == 0:
		return tagf(ErrTruncated, "compressed data ends unexpectedly after all %d tar bytes (cut gzip trailer or trailing junk)", l.size)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return l.truncated()
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, gzip.ErrChecksum), errors.As(err, &corrupt):
		return tagCause(ErrCorrupt, err, "decompressing payload")
	}
	return fmt.Errorf("reading payload: %w", err)
}

// atEnd checks that the stream ends exactly at the declared size.
func (l *exactReader) atEnd() error {
	var b [1]byte
	n, err := io.ReadFull(l.r, b[:])
	switch {
	case n > 0:
		l.err = tagf(ErrBomb, "decompressed data exceeds the declared %d bytes", l.size)
	case err == io.EOF:
		return io.EOF
	default:
		l.err = l.classify(err)
	}
	return l.err
}

func (l *exactReader) truncated() error {
	return tagf(ErrTruncated, "payload ends after %d of the declared %d tar bytes", l.size-l.remaining, l.size)
}

// finish drains what the tar reader left (padding up to the declared size)
// and checks that the stream ends exactly there.
func (l *exactReader) finish() error {
	if _, err := io.Copy(io.Discard, l); err != nil {
		return err
	}
	if l.remaining != 0 {
		return l.truncated()
	}
	return nil
}
