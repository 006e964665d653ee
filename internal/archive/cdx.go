package archive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// cdxFields maps the field names of IA CDX (fl=...) and of pywb / Common
// Crawl NDJSON to the Capture field they fill.
var cdxFields = map[string]string{
	"timestamp": "timestamp",
	"original":  "url", "url": "url",
	"mimetype": "mime", "mime": "mime",
	"statuscode": "status", "status": "status",
	"digest":   "digest",
	"length":   "length",
	"offset":   "offset",
	"filename": "filename",
}

// ParseCDXJSON parses one answer of a Wayback CDX server queried with
// output=json: a JSON array of arrays whose first row names the fields (the
// field order is taken from it), optionally followed by an empty row and a
// one-element row holding the resume key. An empty body or "[]" means no
// captures. Answers in pywb's NDJSON form (one object per line) and in
// plain text are accepted too: cdxj lines ("urlkey timestamp {json}")
// and space-delimited lines of 7, 9, 10 or 11 fields in the orders CDX
// files use (a resume key follows a blank line).
//
// Unknown statuses and lengths ("-") become 0, and so does the length of
// a revisit record (mime warc/revisit), which is not the page's. Rows
// with an unparsable or implausible timestamp are dropped, and so are
// rows of the wrong shape (another number of cells than the header,
// cells that are neither strings nor numbers); an answer of nothing but
// such rows is ErrMalformed. When base is not empty, Replay is set to
// {base}/web/{timestamp}id_/{original}. Source is left empty.
func ParseCDXJSON(data []byte, base string) (caps []Capture, resumeKey string, err error) {
	sink := &rowSink{replay: waybackReplayPrefix(base), emit: func(c Capture) error {
		caps = append(caps, c)
		return nil
	}}
	if resumeKey, err = scanCDX(bytes.NewReader(data), sink); err != nil {
		return nil, "", err
	}
	return caps, resumeKey, nil
}

// waybackReplayPrefix is the raw-replay prefix of a Wayback base, "" for
// none.
func waybackReplayPrefix(base string) string {
	if base == "" {
		return ""
	}
	return strings.TrimRight(base, "/") + "/web/"
}

// rowSink receives the rows of a CDX or index answer as named fields and
// turns them into captures for emit. Rows with a kept field longer than
// fieldBytes (when positive) are dropped and counted.
type rowSink struct {
	replay     string   // replay prefix of the captures; "" leaves Replay empty
	fields     []string // the field names of space-delimited text rows
	fieldBytes int
	accept     func(map[string]string) bool // nil keeps every row
	after      mark                         // rows up to it were delivered from an earlier answer
	page       *pageStats                   // what the answer's rows were; nil: not kept
	emit       func(Capture) error
	seen       int   // rows received
	dropped    int   // rows dropped for an overlong field
	malformed  int   // rows dropped for their shape (cell count, cell types)
	skip       int   // captures not emitted: an earlier read of the page delivered them
	passed     int   // captures seen by emit, skipped ones included
	atMark     int   // rows seen with after's key
	callerErr  error // the listing caller's error, which ends the listing
}

// row handles one row; only emit's error is returned.
func (s *rowSink) row(m map[string]string) error {
	s.seen++
	if s.page != nil {
		s.page.note(m)
	}
	if s.delivered(m) {
		return nil
	}
	if s.fieldBytes > 0 {
		for name, v := range m {
			if cdxFields[name] != "" && len(v) > s.fieldBytes {
				s.dropped++
				return nil
			}
		}
	}
	if s.accept != nil && !s.accept(m) {
		return nil
	}
	if c, ok := captureFromFields(m, s.replay); ok {
		return s.emit(c)
	}
	return nil
}

// delivered reports whether an earlier answer delivered the row: it is
// before the mark in index order, or one of the mark's first n rows.
func (s *rowSink) delivered(m map[string]string) bool {
	k, ok := rowKey(m)
	if s.after.key == "" || !ok {
		return false
	}
	if k == s.after.key {
		s.atMark++
		return s.atMark <= s.after.n
	}
	return k < s.after.key
}

// ndjsonLineFactor bounds an NDJSON line to this many times the field
// bound; longer lines are dropped like rows with an overlong field.
const ndjsonLineFactor = 16

// scanCDX reads one CDX answer from r, a JSON array of arrays, NDJSON
// objects or plain text (cdxj or space-delimited lines), row by row, so
// memory stays bounded by one row whatever the answer's size. It returns
// the resume key, if any. Errors other than emit's wrap ErrMalformed, or
// are r's read errors.
func scanCDX(r io.Reader, sink *rowSink) (string, error) {
	return scanCDXFrom(bufio.NewReader(readErrs{r}), sink)
}

// scanCDXFrom is scanCDX on a buffered reader whose errors are marked
// with errRead.
func scanCDXFrom(br *bufio.Reader, sink *rowSink) (string, error) {
	first, err := firstNonSpace(br)
	if err == io.EOF {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	switch first {
	case '{':
		return "", scanNDJSON(br, sink)
	case '[':
		return scanCDXArray(json.NewDecoder(br), sink)
	}
	return scanCDXText(br, sink)
}

// firstNonSpace returns the first byte after JSON white space, unread.
func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, br.UnreadByte()
		}
	}
}

// scanCDXArray reads a JSON array of arrays: the header row, the capture
// rows, and after an empty row the resume key row.
func scanCDXArray(dec *json.Decoder, sink *rowSink) (string, error) {
	if err := wantDelim(dec, '['); err != nil {
		return "", err
	}
	if !dec.More() {
		return "", endArray(dec)
	}
	header, err := decodeRow(dec)
	if err != nil {
		return "", malformed(err, "cdx header: %v", err)
	}
	for i := 1; dec.More(); i++ {
		rec, err := decodeRow(dec)
		var cells *cellError
		switch {
		case errors.As(err, &cells) || err == nil && len(rec) != len(header) && len(rec) > 0:
			sink.malformed++ // a row of the wrong shape: dropped and counted
			continue
		case err != nil:
			return "", malformed(err, "cdx row %d: %v", i, err)
		case len(rec) == 0:
			key, err := resumeKeyRows(dec)
			if err != nil {
				return "", err
			}
			return key, sink.allMalformed(endArray(dec))
		}
		m := make(map[string]string, len(header))
		for j, name := range header {
			m[name] = rec[j]
		}
		if err := sink.row(m); err != nil {
			return "", err
		}
	}
	return "", sink.allMalformed(endArray(dec))
}

// allMalformed returns err, or ErrMalformed when every row of the answer
// was of the wrong shape: an answer of nothing but damage is not taken
// for an empty one.
func (s *rowSink) allMalformed(err error) error {
	if err == nil && s.malformed > 0 && s.seen == 0 {
		return fmt.Errorf("%w: cdx: all %d rows malformed", ErrMalformed, s.malformed)
	}
	return err
}

// decodeRow decodes one row of the array as strings; numbers are accepted
// and formatted as JSON wrote them, anything else is an error. null is an
// empty row.
func decodeRow(dec *json.Decoder) ([]string, error) {
	var row []any
	if err := dec.Decode(&row); err != nil {
		return nil, err
	}
	return cellStrings(row)
}

// resumeKeyRows reads the rows after the empty separator row: the first,
// if it has one cell, holds the resume key; the rest are skipped.
func resumeKeyRows(dec *json.Decoder) (string, error) {
	key := ""
	for first := true; dec.More(); first = false {
		var row []any
		if err := dec.Decode(&row); err != nil {
			return "", malformed(err, "cdx resume key: %v", err)
		}
		if first && len(row) == 1 {
			key, _ = row[0].(string)
		}
	}
	return key, nil
}

// wantDelim reads one token, which must be the delimiter d.
func wantDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return malformed(err, "cdx json: %v", err)
	}
	if tok != d {
		return fmt.Errorf("%w: cdx json: want %v, got %v", ErrMalformed, d, tok)
	}
	return nil
}

// endArray reads the closing bracket, which must end the input.
func endArray(dec *json.Decoder) error {
	if err := wantDelim(dec, ']'); err != nil {
		return err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("data after the array: %v", tok)
		}
		return malformed(err, "cdx json: %v", err)
	}
	return nil
}

// malformed wraps a parse error in ErrMalformed, unless it is a read
// error of the input (a byte bound, a broken connection), which is
// returned as is.
func malformed(err error, format string, args ...any) error {
	if errors.Is(err, errRead) {
		return err
	}
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// errRead marks a failure to read an answer, as opposed to a failure to
// parse it.
var errRead = errors.New("archive: reading answer")

// readErrs marks the errors of r other than io.EOF with errRead.
type readErrs struct{ r io.Reader }

// Read implements io.Reader.
func (r readErrs) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errRead, err)
	}
	return n, err
}

// cellStrings converts one JSON row to strings; numbers are accepted and
// formatted as JSON wrote them, anything else is a *cellError.
func cellStrings(row []any) ([]string, error) {
	out := make([]string, len(row))
	for i, v := range row {
		switch v := v.(type) {
		case string:
			out[i] = v
		case float64:
			out[i] = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			return nil, &cellError{i, v}
		}
	}
	return out, nil
}

// cellError is a row cell that is neither a string nor a number.
type cellError struct {
	i int
	v any
}

func (e *cellError) Error() string { return fmt.Sprintf("cell %d is %T", e.i, e.v) }

// scanNDJSON reads one JSON object per line (pywb and Common Crawl
// output=json). Blank lines are skipped; unknown fields are ignored.
func scanNDJSON(br *bufio.Reader, sink *rowSink) error {
	maxLine := sink.fieldBytes * ndjsonLineFactor
	for n := 1; ; n++ {
		line, long, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return err
		}
		if long {
			sink.seen++
			sink.dropped++
		} else if err := ndjsonLine(line, n, sink); err != nil {
			return err
		}
		if err == io.EOF {
			return nil
		}
	}
}

// ndjsonLine parses one NDJSON line into the sink.
func ndjsonLine(line []byte, n int, sink *rowSink) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal(line, &obj); err != nil {
		return fmt.Errorf("%w: ndjson line %d: %v", ErrMalformed, n, err)
	}
	return sink.row(jsonFields(obj))
}

// readLine reads one line with its end. A line longer than max bytes
// (when max is positive) is read to its end but not kept: long is true.
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !long && max > 0 && len(line)+len(frag) > max {
			long, line = true, nil
		}
		if !long {
			line = append(line, frag...)
		}
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
}

// captureFromFields builds a Capture from named CDX fields, with Replay
// under the prefix replay when it is not empty. It reports false when the
// timestamp is missing, unparsable or implausible.
func captureFromFields(m map[string]string, replay string) (Capture, bool) {
	var c Capture
	var ts string
	for name, v := range m {
		switch cdxFields[name] {
		case "timestamp":
			ts = v
		case "url":
			c.URL = v
		case "mime":
			c.MIME = v
		case "status":
			c.Status = int(parseDashInt(v, 999))
		case "digest":
			c.Digest = v
		case "length":
			c.Length = parseDashInt(v, 1<<62)
		case "offset":
			c.Offset = parseDashInt(v, 1<<62)
		case "filename":
			c.File = v
		}
	}
	t, err := ParseTimestamp(ts)
	if err != nil || !plausible(t, nowFunc()) {
		return Capture{}, false
	}
	c.Time = t
	if c.MIME == revisitMIME {
		c.Length = 0 // the revisit record's, not the page's
	}
	if replay != "" && c.URL != "" {
		c.Replay = replayURL(replay, ts, c.URL)
	}
	return c, true
}

// parseDashInt parses a non-negative decimal up to max; "-", "" and
// anything unparsable or out of range give 0 (unknown).
func parseDashInt(s string, max int64) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > max {
		return 0
	}
	return n
}

// WaybackReplayURL returns the raw-replay URL {base}/web/{timestamp}id_/{original},
// which a Wayback server answers with the original bytes, unrewritten.
func WaybackReplayURL(base, timestamp, original string) string {
	return replayURL(waybackReplayPrefix(base), timestamp, original)
}
