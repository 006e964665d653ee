package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"
)

const (
	// MaxLineSize bounds one header line, line end included.
	MaxLineSize = 64 << 10
	// MaxHeaderSize bounds the header block of one record.
	MaxHeaderSize = 1 << 20
	// maxProblems bounds the problems kept by a Reader; later ones are
	// only counted.
	maxProblems = 1000
)

var (
	// ErrTruncated is returned by a record's Body when the input ends (or
	// its gzip member is damaged) before Content-Length bytes were read;
	// the bytes before the error are the available part of the record.
	ErrTruncated = errors.New("warc: record truncated")
	// ErrNoRecord is returned by ReadAt when the byte range holds no record.
	ErrNoRecord = errors.New("warc: no record in byte range")
)

// Problem is a non-fatal defect found while reading: skipped junk, a bad
// record separator, a rejected record header, a damaged gzip member.
type Problem struct {
	// Offset is the decompressed offset at which the problem was found.
	Offset int64
	Err    error
}

// Error implements error.
func (p Problem) Error() string { return fmt.Sprintf("offset %d: %v", p.Offset, p.Err) }

// Unwrap returns the underlying error.
func (p Problem) Unwrap() error { return p.Err }

// Record is one WARC record. Body yields exactly the record's block.
type Record struct {
	Version   string    // e.g. "WARC/1.0"
	Header    Header    // all header fields, in file order
	Type      string    // WARC-Type
	TargetURI string    // WARC-Target-URI without angle brackets
	Date      time.Time // WARC-Date; zero if missing or invalid
	// ContentLength is the declared length of the block.
	ContentLength int64
	// Body reads the block; it returns ErrTruncated if the input ends early.
	// It is valid until the next call to Next.
	Body io.Reader
	// Offset and Length locate the record in the file as stored: for plain
	// files the byte range from the version line through the trailing
	// separator; for gzip files the range of the gzip members holding the
	// record, suitable for ReadAt. Offset is -1 in gzip files when the
	// record shares its first member with an earlier record; Length is -1
	// until Next has moved past the record, and stays -1 when the record
	// shares its last member with a later one or that member is damaged.
	Offset, Length int64

	uStart, uEnd int64 // decompressed extent
}

// Reader reads WARC records from plain or gzip-compressed input (one
// member per record or any other split), detected from the first bytes.
type Reader struct {
	count    countingReader
	gz       *gunzipStream // nil for plain input
	src      *bufio.Reader // decompressed stream
	pos      int64         // decompressed bytes consumed from src
	cur      *Record
	lastEnd  int64 // decompressed end of the last finished record
	pending  *versionLine
	body     *body
	problems []Problem
	nprob    int
	err      error // sticky
}

// NewReader returns a Reader of the WARC records in r.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{count: countingReader{r: r}}
	raw := bufio.NewReaderSize(&rd.count, MaxLineSize)
	rd.src = raw
	if head, _ := raw.Peek(2); bytes.HasPrefix(gzipMagic, head) && len(head) == 2 {
		rd.gz = newGunzipStream(raw, &rd.count, rd.addProblem)
		rd.src = bufio.NewReaderSize(rd.gz, MaxLineSize)
	}
	return rd
}

// NewReaderAt returns a Reader of the WARC records in the first size bytes
// of ra, a file. If they are gzip-compressed, their members are inflated
// ahead, in parallel, on workers goroutines (defaults to GOMAXPROCS when
// not positive), holding a bounded amount of decompressed data whatever
// the file's size; records, offsets and problems are exactly NewReader's.
// Close stops the goroutines.
func NewReaderAt(ra io.ReaderAt, size int64, workers int) *Reader {
	return newReaderAt(ra, size, workers, 0)
}

// newReaderAt is NewReaderAt with chunks of chunkSize bytes (0: adaptive).
func newReaderAt(ra io.ReaderAt, size int64, workers int, chunkSize int64) *Reader {
	rd := NewReader(io.NewSectionReader(ra, 0, size))
	if rd.gz != nil && rd.gz.seeker != nil {
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		rd.gz.pf = newPrefetcher(ra, size, chunkSize, workers)
	}
	return rd
}

// Close releases what the Reader holds: the goroutines of NewReaderAt. It
// does not close the input. A closed Reader returns no more records.
func (r *Reader) Close() error {
	if r.gz != nil && r.gz.pf != nil {
		r.gz.pf.close()
		r.gz.pf = nil
	}
	if r.err == nil {
		r.err = errReaderClosed
	}
	return nil
}

// errReaderClosed is returned by Next after Close.
var errReaderClosed = errors.New("warc: reader closed")

// Problems returns the non-fatal problems found so far (at most 1000).
func (r *Reader) Problems() []Problem { return r.problems }

// ProblemCount returns how many problems were found, including those not
// kept by Problems.
func (r *Reader) ProblemCount() int { return r.nprob }

func (r *Reader) addProblem(off int64, err error) {
	r.nprob++
	if len(r.problems) < maxProblems {
		r.problems = append(r.problems, Problem{off, err})
	}
}

// versionLine is a version line found while reading a header.
type versionLine struct {
	start int64
	line  []byte
}

// Next returns the next well-formed record, skipping (and reporting in
// Problems) junk and records whose headers are invalid. It returns io.EOF
// at the end of the input. Any unread part of the previous record's body
// is discarded.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	if err := r.finishCurrent(); err != nil {
		return nil, r.fail(err)
	}
	for {
		start, line, err := r.findVersionLine()
		if err != nil {
			r.closePrev(math.MaxInt64)
			return nil, r.fail(err)
		}
		r.closePrev(start)
		rec, err := r.readHeader(start, line)
		if err != nil {
			r.addProblem(start, err)
			continue
		}
		r.open(rec)
		return rec, nil
	}
}

func (r *Reader) fail(err error) error {
	r.err = err
	return err
}

// readByteLine reads one line (with its line end) from src. Lines longer
// than MaxLineSize come back in pieces with bufio.ErrBufferFull.
func (r *Reader) readByteLine() ([]byte, error) {
	line, err := r.src.ReadSlice('\n')
	r.pos += int64(len(line))
	return line, err
}

// findVersionLine skips to the next WARC version line at a line start and
// returns its offset and text.
func (r *Reader) findVersionLine() (int64, []byte, error) {
	if p := r.pending; p != nil {
		r.pending = nil
		return p.start, p.line, nil
	}
	junkStart, junk := r.pos, false
	for {
		start := r.pos
		line, err := r.readByteLine()
		if err == nil && isVersionLine(trimEOL(line)) {
			r.reportJunk(junkStart, start, junk)
			return start, trimEOL(line), nil
		}
		junk = junk || len(bytes.Trim(line, "\r\n")) > 0
		if r.gz != nil && len(r.gz.members) > 1024 {
			r.gz.trim(start, r.lastEnd-1)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			r.reportJunk(junkStart, r.pos, junk)
			return 0, nil, io.EOF
		}
		if err != nil && err != bufio.ErrBufferFull && !errors.Is(err, errMemberDamaged) {
			return 0, nil, fmt.Errorf("warc: reading input: %w", err)
		}
	}
}

func (r *Reader) reportJunk(from, to int64, junk bool) {
	if junk {
		r.addProblem(from, fmt.Errorf("warc: skipped %d bytes that are not a WARC record", to-from))
	}
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// readHeader reads the header fields after a version line and validates
// the record.
func (r *Reader) readHeader(start int64, version []byte) (*Record, error) {
	h, err := r.readFields()
	if err != nil {
		return nil, err
	}
	rec := &Record{Version: string(version), Header: h, uStart: start, Offset: -1, Length: -1}
	if rec.ContentLength, err = parseContentLength(h.Get("Content-Length")); err != nil {
		return nil, err
	}
	if rec.Type = h.Get("WARC-Type"); rec.Type == "" {
		return nil, errors.New("warc: record has no WARC-Type")
	}
	rec.TargetURI = cleanTargetURI(h.Get("WARC-Target-URI"))
	if d, ok := h.Lookup("WARC-Date"); ok {
		if rec.Date, err = parseDate(d); err != nil {
			r.addProblem(start, err)
		}
	} else {
		r.addProblem(start, errors.New("warc: record has no WARC-Date"))
	}
	return rec, nil
}

// readFields reads header lines up to the blank line ending the header.
// Folded continuation lines are joined to their field in linear time.
func (r *Reader) readFields() (Header, error) {
	var h headerBuilder
	size := 0
	for {
		start := r.pos
		line, err := r.readByteLine()
		size += len(line)
		switch {
		case errors.Is(err, errMemberDamaged):
			return nil, errors.New("warc: record header in a damaged gzip member")
		case err == bufio.ErrBufferFull:
			return nil, fmt.Errorf("warc: header line longer than %d bytes", MaxLineSize)
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil, fmt.Errorf("%w: input ends inside a record header", ErrTruncated)
		case err != nil:
			return nil, fmt.Errorf("warc: reading record header: %w", err)
		case size > MaxHeaderSize:
			return nil, fmt.Errorf("warc: record header longer than %d bytes", MaxHeaderSize)
		}
		if isVersionLine(trimEOL(line)) {
			// A record starts inside this header: resume there.
			r.pending = &versionLine{start, bytes.Clone(trimEOL(line))}
			return nil, errors.New("warc: record header interrupted by a version line")
		}
		text := string(trimEOL(line))
		if text == "" {
			return h.header(), nil
		}
		if (text[0] == ' ' || text[0] == '\t') && h.fold(text) {
			continue
		}
		f, err := parseField(text)
		if err != nil {
			return nil, err
		}
		h.add(f)
	}
}

// headerBuilder collects header fields. The value of the last field grows
// in a buffer while continuation lines arrive, so a header of many folded
// lines costs linear time, not a copy of the whole value per line.
type headerBuilder struct {
	h       Header
	folded  strings.Builder // the last field's value, while folding
	folding bool
}

// add appends a field.
func (b *headerBuilder) add(f Field) {
	b.flush()
	b.h = append(b.h, f)
}

// fold appends a continuation line, trimmed and after one space, to the
// last field; it reports false when there is no field to continue.
func (b *headerBuilder) fold(line string) bool {
	if len(b.h) == 0 {
		return false
	}
	if !b.folding {
		b.folded.Reset()
		b.folded.WriteString(b.h[len(b.h)-1].Value)
		b.folding = true
	}
	b.folded.WriteByte(' ')
	b.folded.WriteString(strings.TrimSpace(line))
	return true
}

// flush stores the folded value in the last field.
func (b *headerBuilder) flush() {
	if b.folding {
		b.h[len(b.h)-1].Value = b.folded.String()
		b.folding = false
	}
}

// header returns the fields collected.
func (b *headerBuilder) header() Header {
	b.flush()
	return b.h
}
