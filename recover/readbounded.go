package recover

import (
	"errors"
	"io"
)

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
