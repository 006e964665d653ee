package archive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// cdxFormats are the field orders of space-delimited CDX lines by their
// number of fields, as pywb reads index files: the public 7-field form
// and CDX 9, 10 and 11.
var cdxFormats = map[int][]string{
	7:  {"urlkey", "timestamp", "url", "mime", "status", "digest", "length"},
	9:  {"urlkey", "timestamp", "url", "mime", "status", "digest", "redirect", "offset", "filename"},
	10: {"urlkey", "timestamp", "url", "mime", "status", "digest", "redirect", "robotflags", "offset", "filename"},
	11: {"urlkey", "timestamp", "url", "mime", "status", "digest", "redirect", "robotflags", "length", "offset", "filename"},
}

// scanCDXText reads a plain-text CDX answer line by line: cdxj lines
// ("urlkey timestamp {json}", pywb's default output) and space-delimited
// lines whose fields are sink.fields (the fl= sent) or, by their count,
// one of cdxFormats. After a blank line, a line of one token is the
// resume key (the Wayback's text output). Other lines are counted
// malformed and dropped; an answer of nothing else is ErrMalformed.
func scanCDXText(br *bufio.Reader, sink *rowSink) (string, error) {
	maxLine := sink.fieldBytes * ndjsonLineFactor
	key, blank := "", false
	for {
		line, long, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return "", err
		}
		line = bytes.TrimSpace(line)
		switch {
		case long:
			sink.seen++
			sink.dropped++
		case len(line) == 0:
			blank = true
		case blank && len(bytes.Fields(line)) == 1:
			key = string(line)
		default:
			if rerr := sink.textRow(line); rerr != nil {
				return "", rerr
			}
		}
		if err == io.EOF {
			return key, sink.allMalformed(nil)
		}
	}
}

// textRow parses one non-blank text line into the sink.
func (s *rowSink) textRow(line []byte) error {
	if m, ok := cdxjRow(line); ok {
		return s.row(m)
	}
	cells := bytes.Fields(line)
	names := s.fields
	if len(cells) != len(names) {
		names = cdxFormats[len(cells)]
	}
	if names == nil {
		s.malformed++
		return nil
	}
	m := make(map[string]string, len(names))
	for i, name := range names {
		m[name] = string(cells[i])
	}
	return s.row(m)
}

// cdxjRow parses a cdxj line: urlkey, timestamp and a JSON object whose
// string and number members are the other fields.
func cdxjRow(line []byte) (map[string]string, bool) {
	urlkey, rest, ok1 := bytes.Cut(line, []byte(" "))
	ts, obj, ok2 := bytes.Cut(rest, []byte(" "))
	obj = bytes.TrimSpace(obj)
	if !ok1 || !ok2 || len(obj) == 0 || obj[0] != '{' {
		return nil, false
	}
	var fields map[string]any
	if json.Unmarshal(obj, &fields) != nil {
		return nil, false
	}
	m := jsonFields(fields)
	m["urlkey"], m["timestamp"] = string(urlkey), string(ts)
	return m, true
}

// jsonFields keeps the string and number members of a JSON object, as
// strings (numbers as JSON wrote them).
func jsonFields(obj map[string]any) map[string]string {
	m := make(map[string]string, len(obj)+2)
	for k, v := range obj {
		switch v := v.(type) {
		case string:
			m[k] = v
		case float64:
			m[k] = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return m
}
