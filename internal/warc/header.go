package warc

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Field is one named WARC header field.
type Field struct {
	Name  string
	Value string
}

// Header is the ordered list of fields of a WARC record. Lookups are
// case-insensitive; order and spelling are preserved when writing.
type Header []Field

// Get returns the value of the first field named name (case-insensitive),
// or "" if there is none.
func (h Header) Get(name string) string {
	v, _ := h.Lookup(name)
	return v
}

// Lookup returns the value of the first field named name (case-insensitive)
// and whether such a field exists.
func (h Header) Lookup(name string) (string, bool) {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// Set replaces the first field named name (case-insensitive) by value and
// removes any later ones; it appends the field if there is none.
func (h *Header) Set(name, value string) {
	out := (*h)[:0]
	found := false
	for _, f := range *h {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
			continue
		}
		if !found {
			out = append(out, Field{f.Name, value})
			found = true
		}
	}
	if !found {
		out = append(out, Field{name, value})
	}
	*h = out
}

// Add appends a field, keeping any existing ones with the same name.
func (h *Header) Add(name, value string) {
	*h = append(*h, Field{name, value})
}

// Clone returns a copy of h that shares no storage with it.
func (h Header) Clone() Header {
	return append(Header(nil), h...)
}

// parseField parses one "Name: value" header line without its line end.
func parseField(line string) (Field, error) {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return Field{}, fmt.Errorf("warc: header line %.40q has no colon", line)
	}
	if name == "" || !isToken(name) {
		return Field{}, fmt.Errorf("warc: invalid header field name %.40q", name)
	}
	return Field{name, strings.Trim(value, " \t")}, nil
}

// isToken reports whether s holds only RFC 9110 token characters.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// parseContentLength parses a non-negative decimal Content-Length.
func parseContentLength(s string) (int64, error) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("warc: invalid Content-Length %.40q", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

// parseDate parses a WARC-Date: W3C-DTF in UTC, with optional fractional
// seconds (WARC/1.1); a few looser forms seen in the wild are accepted.
func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "20060102150405"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("warc: invalid WARC-Date %.40q", s)
}

// cleanTargetURI trims spaces and the angle brackets old wget versions put
// around WARC-Target-URI.
func cleanTargetURI(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// isVersionLine reports whether line (without line end) is a WARC version
// line such as "WARC/1.0" or "WARC/1.1".
func isVersionLine(line []byte) bool {
	s := strings.TrimRight(string(line), " \t")
	rest, ok := strings.CutPrefix(s, "WARC/")
	if !ok {
		return false
	}
	major, minor, ok := strings.Cut(rest, ".")
	return ok && isDigits(major) && isDigits(minor) && len(major) <= 3 && len(minor) <= 3
}

func isDigits(s string) bool {
	return s != "" && strings.TrimLeft(s, "0123456789") == ""
}
