package source

import (
	"context"
	"errors"
	"io"
)

// maxCaptureReads bounds the reads of one capture whose answer breaks
// off (io.ErrUnexpectedEOF: a body shorter than its Content-Length, a
// gzip member cut short).
const maxCaptureReads = 3

// Read returns a capture's bytes, at most limit of them. A capture
// whose bytes end early is asked for again, up to maxCaptureReads times;
// if it never arrives whole, the longest read is returned with whole
// false (its intact blocks still count).
func Read(ctx context.Context, src Source, c Capture, limit int64) (page []byte, whole bool, err error) {
	for read := 1; read <= maxCaptureReads; read++ {
		got, whole, err := readOnce(ctx, src, c, limit)
		if err != nil || whole {
			return got, whole, err
		}
		if len(got) > len(page) {
			page = got
		}
	}
	return page, false, nil
}

// readOnce reads a capture from its source; whole is false when the
// bytes ended early.
func readOnce(ctx context.Context, src Source, c Capture, limit int64) (page []byte, whole bool, err error) {
	rc, err := src.Fetch(ctx, c)
	if err != nil {
		return nil, false, err
	}
	defer rc.Close()
	page, err = readBounded(rc, limit, 64<<10)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, err
	}
	return page, err == nil, nil
}

// readBounded reads r to its end, but at most limit bytes, into a buffer
// grown by doubling from min(hint, limit) and never beyond limit: a body
// whose size is unknown (a decoded one) costs at most about 1.5 × limit
// while growing, not the 3 × limit of a buffer that doubles past the
// limit to find the end. It returns what it read with the reader's error,
// if any (io.EOF excepted).
func readBounded(r io.Reader, limit, hint int64) ([]byte, error) {
	if limit <= 0 {
		return nil, nil
	}
	buf := make([]byte, 0, max(min(hint, limit), 512))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= limit {
				return buf, nil
			}
			grown := make([]byte, len(buf), min(int64(2*cap(buf)), limit))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// MaxTriesPerKey bounds the captures of one key (one digest) fetched
// after failures: a flaky replay of one capture must not hide the same
// bytes archived in another.
const MaxTriesPerKey = 3
