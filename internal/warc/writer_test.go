package warc

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWriterValidates(t *testing.T) {
	tests := []struct {
		name string
		h    Header
	}{
		{"no type", Header{{"WARC-Target-URI", "http://x/"}}},
		{"CRLF in value", Header{{"WARC-Type", "resource"}, {"X", "a\r\nWARC-Type: evil"}}},
		{"bad name", Header{{"WARC-Type", "resource"}, {"Bad Name", "v"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := NewWriter(&b, false).WriteRecord(tt.h, nil); err == nil {
				t.Error("WriteRecord succeeded")
			}
		})
	}
}

func TestWriterFields(t *testing.T) {
	// Given ID, date and a wrong Content-Length: ID and date are kept,
	// Content-Length is recomputed; the output is then deterministic.
	var b bytes.Buffer
	h := Header{{"WARC-Type", "resource"}, {"WARC-Record-ID", "<urn:uuid:1>"},
		{"WARC-Date", "2020-01-02T03:04:05Z"}, {"Content-Length", "99"}}
	if err := NewWriter(&b, false).WriteRecord(h, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	want := "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n" +
		"WARC-Date: 2020-01-02T03:04:05Z\r\nContent-Length: 3\r\n" +
		"WARC-Block-Digest: sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5\r\n\r\nabc\r\n\r\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	if h.Get("Content-Length") != "99" {
		t.Error("WriteRecord modified the caller's header")
	}
}

func TestWriterOffset(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, true)
	w.now = func() time.Time { return testDate }
	for i := 0; i < 3; i++ {
		if err := w.WriteResponse("http://x/", testDate, httpResponse([]byte("hi"))); err != nil {
			t.Fatal(err)
		}
		if w.Offset() != int64(b.Len()) {
			t.Fatalf("Offset %d, wrote %d", w.Offset(), b.Len())
		}
	}
	if err := NewWriter(failWriter{}, true).WriteWarcinfo("x", nil); err == nil {
		t.Error("write error not returned")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestHeader(t *testing.T) {
	h := Header{{"A", "1"}, {"b", "2"}, {"a", "3"}}
	h.Set("a", "x")
	if got := h; len(got) != 2 || got.Get("A") != "x" || got[0].Name != "A" {
		t.Errorf("Set: %v", got)
	}
	h.Add("c", "4")
	h.Set("D", "5")
	if h.Get("c") != "4" || h.Get("d") != "5" || h.Get("none") != "" {
		t.Errorf("Add/Set: %v", h)
	}
	if cleanTargetURI(" <http://a/> ") != "http://a/" || cleanTargetURI("<") != "<" {
		t.Error("cleanTargetURI")
	}
	for _, s := range []string{"WARC/1.0", "WARC/1.1 ", "WARC/0.18"} {
		if !isVersionLine([]byte(s)) {
			t.Errorf("%q is a version line", s)
		}
	}
	for _, s := range []string{"WARC/", "WARC/1", "WARC/x.0", "warc/1.0", " WARC/1.0", strings.Repeat("WARC/1.0", 2)} {
		if isVersionLine([]byte(s)) {
			t.Errorf("%q is not a version line", s)
		}
	}
}

func TestParseDate(t *testing.T) {
	want := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		in string
		ok bool
	}{
		{"2024-05-06T07:08:09Z", true},      // WARC/1.0
		{"2024-05-06T07:08:09.5Z", true},    // WARC/1.1 fractional seconds
		{"2024-05-06T09:08:09+02:00", true}, // offset, normalised to UTC
		{"2024-05-06T07:08:09", true},       // no zone: taken as UTC
		{"20240506070809", true},            // 14-digit timestamp
		{"2024-05-06", false},
		{"yesterday", false},
	}
	for _, tt := range tests {
		got, err := parseDate(tt.in)
		if (err == nil) != tt.ok || tt.ok && !got.Truncate(time.Second).Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v", tt.in, got, err)
		}
	}
}
