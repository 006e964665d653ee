package warc

import (
	"errors"
	"fmt"
	"io"
)

// body reads exactly the block of the current record from the Reader.
type body struct {
	r         *Reader
	remaining int64
	want      int64
	err       error
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.remaining == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.r.src.Read(p)
	b.r.pos += int64(n)
	b.remaining -= int64(n)
	switch {
	case err == nil:
	case err == io.EOF || err == io.ErrUnexpectedEOF || errors.Is(err, errMemberDamaged):
		if b.remaining > 0 {
			b.err = fmt.Errorf("%w: %d of %d bytes", ErrTruncated, b.want-b.remaining, b.want)
		}
	default:
		b.err = fmt.Errorf("warc: reading record body: %w", err)
	}
	if n > 0 {
		return n, nil
	}
	return 0, b.err
}

// open makes rec the current record.
func (r *Reader) open(rec *Record) {
	r.cur = rec
	r.body = &body{r: r, remaining: rec.ContentLength, want: rec.ContentLength}
	rec.Body = r.body
	if r.gz == nil {
		rec.Offset = rec.uStart
		return
	}
	if m, ok := r.gz.memberAt(rec.uStart); ok && r.lastEnd <= m.uStart {
		rec.Offset = m.cStart
	}
}

// finishCurrent discards the rest of the current record's body and its
// separator, which should be CRLF CRLF.
func (r *Reader) finishCurrent() error {
	if r.cur == nil {
		return nil
	}
	if _, err := io.Copy(io.Discard, r.body); err != nil && !errors.Is(err, ErrTruncated) {
		return err
	}
	var sep []byte
	for len(sep) < 4 {
		c, err := r.src.ReadByte()
		if err != nil {
			break
		}
		if c != '\r' && c != '\n' {
			_ = r.src.UnreadByte()
			break
		}
		r.pos++
		sep = append(sep, c)
	}
	if string(sep) != "\r\n\r\n" && r.body.err == nil {
		r.addProblem(r.pos, fmt.Errorf("warc: record separator is %q, want \"\\r\\n\\r\\n\"", sep))
	}
	r.cur.uEnd = r.pos
	r.lastEnd = r.pos
	return nil
}

// closePrev sets the Length of the record before the one starting at
// decompressed offset next, and then forgets it.
func (r *Reader) closePrev(next int64) {
	rec := r.cur
	if rec == nil {
		return
	}
	r.cur, r.body = nil, nil
	if r.gz == nil {
		rec.Length = rec.uEnd - rec.uStart
		return
	}
	m, ok := r.gz.memberAt(rec.uEnd - 1)
	if ok && rec.Offset >= 0 && m.cEnd >= 0 && next >= m.uEnd {
		rec.Length = m.cEnd - rec.Offset
	}
	r.gz.trim(rec.uEnd, -1)
}
