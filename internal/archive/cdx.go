package archive

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// captures. Answers in pywb's NDJSON form (one object per line) are
// accepted too.
//
// Unknown statuses and lengths ("-") become 0. Rows with an unparsable or
// implausible timestamp are dropped. When base is not empty, Replay is set
// to {base}/web/{timestamp}id_/{original}. Source is left empty.
func ParseCDXJSON(data []byte, base string) (caps []Capture, resumeKey string, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, "", nil
	}
	if data[0] == '{' {
		caps, err = parseNDJSON(data, base)
		return caps, "", err
	}
	var rows [][]any
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, "", fmt.Errorf("%w: cdx json: %v", ErrMalformed, err)
	}
	return parseCDXRows(rows, base)
}

// parseCDXRows interprets the rows of a CDX JSON answer.
func parseCDXRows(rows [][]any, base string) ([]Capture, string, error) {
	if len(rows) == 0 {
		return nil, "", nil
	}
	header, err := cellStrings(rows[0])
	if err != nil {
		return nil, "", fmt.Errorf("%w: cdx header: %v", ErrMalformed, err)
	}
	var caps []Capture
	for i := 1; i < len(rows); i++ {
		if len(rows[i]) == 0 {
			return caps, resumeKeyAfter(rows[i+1:]), nil
		}
		rec, err := cellStrings(rows[i])
		if err != nil || len(rec) != len(header) {
			return nil, "", fmt.Errorf("%w: cdx row %d: want %d string cells", ErrMalformed, i, len(header))
		}
		m := make(map[string]string, len(header))
		for j, name := range header {
			m[name] = rec[j]
		}
		if c, ok := captureFromFields(m, base); ok {
			caps = append(caps, c)
		}
	}
	return caps, "", nil
}

// resumeKeyAfter returns the resume key from the rows after the empty
// separator row, or "" if there is none.
func resumeKeyAfter(rows [][]any) string {
	if len(rows) == 0 || len(rows[0]) != 1 {
		return ""
	}
	s, _ := rows[0][0].(string)
	return s
}

// cellStrings converts one JSON row to strings; numbers are accepted and
// formatted as JSON wrote them, anything else is an error.
func cellStrings(row []any) ([]string, error) {
	out := make([]string, len(row))
	for i, v := range row {
		switch v := v.(type) {
		case string:
			out[i] = v
		case float64:
			out[i] = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			return nil, fmt.Errorf("cell %d is %T", i, v)
		}
	}
	return out, nil
}

// parseNDJSON parses one JSON object per line (pywb and Common Crawl
// output=json). Blank lines are skipped; unknown fields are ignored.
func parseNDJSON(data []byte, base string) ([]Capture, error) {
	var caps []Capture
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			return nil, fmt.Errorf("%w: ndjson line %d: %v", ErrMalformed, n+1, err)
		}
		m := make(map[string]string, len(obj))
		for k, v := range obj {
			switch v := v.(type) {
			case string:
				m[k] = v
			case float64:
				m[k] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		if c, ok := captureFromFields(m, base); ok {
			caps = append(caps, c)
		}
	}
	return caps, nil
}

// captureFromFields builds a Capture from named CDX fields. It reports
// false when the timestamp is missing, unparsable or implausible.
func captureFromFields(m map[string]string, base string) (Capture, bool) {
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
	if base != "" && c.URL != "" {
		c.Replay = WaybackReplayURL(base, ts, c.URL)
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
	return strings.TrimRight(base, "/") + "/web/" + timestamp + "id_/" + original
}
