package warc

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// version is the version line Writer emits. WARC/1.0 is the most widely
// supported; dates are therefore written with whole seconds.
const version = "WARC/1.0"

// Writer writes WARC records, optionally each as its own gzip member.
type Writer struct {
	w        io.Writer
	gzipEach bool
	written  int64
	zw       *gzip.Writer
	now      func() time.Time
}

// NewWriter returns a Writer to w. If gzipEach is true every record is
// written as its own gzip member (the usual .warc.gz layout); otherwise
// records are written uncompressed.
func NewWriter(w io.Writer, gzipEach bool) *Writer {
	return &Writer{w: w, gzipEach: gzipEach, now: time.Now}
}

// Offset returns the number of bytes written so far: the offset at which
// the next record will start.
func (w *Writer) Offset() int64 { return w.written }

// WriteRecord writes one record with header h and block body. WARC-Type
// must be set. Content-Length and WARC-Block-Digest are always computed;
// WARC-Record-ID (a random urn:uuid) and WARC-Date (now) are added when
// absent; for response records with Content-Type application/http a
// WARC-Payload-Digest of the HTTP body is added when absent.
func (w *Writer) WriteRecord(h Header, body []byte) error {
	if h.Get("WARC-Type") == "" {
		return errors.New("warc: record has no WARC-Type")
	}
	h, err := w.complete(h, body)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(version + "\r\n")
	for _, f := range h {
		if strings.ContainsAny(f.Name+f.Value, "\r\n") || !isToken(f.Name) {
			return fmt.Errorf("warc: invalid header field %.40q", f.Name)
		}
		fmt.Fprintf(&buf, "%s: %s\r\n", f.Name, f.Value)
	}
	buf.WriteString("\r\n")
	buf.Write(body)
	buf.WriteString("\r\n\r\n")
	return w.emit(buf.Bytes())
}

// complete returns a copy of h with the computed fields filled in.
func (w *Writer) complete(h Header, body []byte) (Header, error) {
	h = h.Clone()
	if h.Get("WARC-Record-ID") == "" {
		id, err := newRecordID()
		if err != nil {
			return nil, err
		}
		h.Set("WARC-Record-ID", id)
	}
	if h.Get("WARC-Date") == "" {
		h.Set("WARC-Date", FormatDate(w.now()))
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("WARC-Block-Digest", Digest(body))
	if isHTTPResponse(h) && h.Get("WARC-Payload-Digest") == "" {
		if p, ok := httpPayload(body); ok {
			h.Set("WARC-Payload-Digest", Digest(p))
		}
	}
	return h, nil
}

// emit writes one serialised record, compressed if asked.
func (w *Writer) emit(rec []byte) error {
	if !w.gzipEach {
		n, err := w.w.Write(rec)
		w.written += int64(n)
		return err
	}
	cw := &countingWriter{w: w.w}
	if w.zw == nil {
		w.zw = gzip.NewWriter(cw)
	} else {
		w.zw.Reset(cw)
	}
	_, err := w.zw.Write(rec)
	if err == nil {
		err = w.zw.Close()
	}
	w.written += cw.n
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteWarcinfo writes a warcinfo record naming filename, whose block
// holds fields as "Name: value" lines (application/warc-fields).
func (w *Writer) WriteWarcinfo(filename string, fields Header) error {
	var body bytes.Buffer
	for _, f := range fields {
		fmt.Fprintf(&body, "%s: %s\r\n", f.Name, f.Value)
	}
	h := Header{{"WARC-Type", "warcinfo"}, {"WARC-Filename", filename},
		{"Content-Type", "application/warc-fields"}}
	return w.WriteRecord(h, body.Bytes())
}

// WriteResponse writes a response record for targetURI captured at date,
// whose block is the HTTP response exactly as received (status line,
// headers, body).
func (w *Writer) WriteResponse(targetURI string, date time.Time, httpResponse []byte) error {
	h := Header{{"WARC-Type", "response"}, {"WARC-Target-URI", targetURI},
		{"WARC-Date", FormatDate(date)},
		{"Content-Type", "application/http; msgtype=response"}}
	return w.WriteRecord(h, httpResponse)
}

// FormatDate formats t as a WARC/1.0 WARC-Date (UTC, whole seconds).
func FormatDate(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// Digest returns the WARC digest of b: "sha1:" and the base32 SHA-1.
func Digest(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// newRecordID returns a random (version 4) "<urn:uuid:…>" record ID.
func newRecordID() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("warc: generating record ID: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:]), nil
}

// isHTTPResponse reports whether h describes a response record holding an
// HTTP message.
func isHTTPResponse(h Header) bool {
	ct := strings.ToLower(strings.TrimSpace(h.Get("Content-Type")))
	return strings.EqualFold(h.Get("WARC-Type"), "response") && strings.HasPrefix(ct, "application/http")
}

// httpPayload returns the bytes after the header block of an HTTP
// response, as stored; the block ends at the first empty line, whether
// lines end in CRLF or LF.
func httpPayload(block []byte) ([]byte, bool) {
	if !bytes.HasPrefix(block, []byte("HTTP/")) {
		return nil, false
	}
	for i := 0; i < len(block); i++ {
		if block[i] != '\n' {
			continue
		}
		rest := block[i+1:]
		if bytes.HasPrefix(rest, []byte("\r\n")) {
			return rest[2:], true
		}
		if bytes.HasPrefix(rest, []byte("\n")) {
			return rest[1:], true
		}
	}
	return nil, false
}
