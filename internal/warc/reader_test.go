package warc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 100, MaxLineSize + 1, 200 << 10}
	layouts := map[string]func([]byte) []byte{
		"plain":       func(b []byte) []byte { return b },
		"gzip-each":   nil,
		"gzip-single": gzipAll,
	}
	for name, wrap := range layouts {
		t.Run(name, func(t *testing.T) {
			data := writeSample(t, wrap == nil, sizes)
			if wrap != nil {
				data = wrap(data)
			}
			recs, rd := readAll(t, data)
			if len(rd.Problems()) != 0 {
				t.Errorf("problems: %v", rd.Problems())
			}
			if len(recs) != len(sizes)+1 || recs[0].rec.Type != "warcinfo" {
				t.Fatalf("got %d records, want warcinfo + %d", len(recs), len(sizes))
			}
			for i, n := range sizes {
				checkResponse(t, recs[i+1], i, n)
			}
		})
	}
}

// checkResponse checks a response record written by writeSample.
func checkResponse(t *testing.T, g got, i, n int) {
	t.Helper()
	r := g.rec
	want := httpResponse(htmlBody(n, i))
	if g.bodyErr != nil || !bytes.Equal(g.body, want) {
		t.Errorf("record %d: body %d bytes (err %v), want %d", i, len(g.body), g.bodyErr, len(want))
	}
	if r.Type != "response" || r.TargetURI != fmt.Sprintf("http://example.com/page%d.html", i) || !r.Date.Equal(testDate) {
		t.Errorf("record %d: type %q uri %q date %v", i, r.Type, r.TargetURI, r.Date)
	}
	if got := r.Header.Get("warc-block-digest"); got != Digest(want) {
		t.Errorf("record %d: block digest %q, want %q", i, got, Digest(want))
	}
	payload, _ := httpPayload(want)
	if got := r.Header.Get("WARC-Payload-Digest"); got != Digest(payload) {
		t.Errorf("record %d: payload digest %q, want %q", i, got, Digest(payload))
	}
	if id := r.Header.Get("WARC-Record-ID"); !strings.HasPrefix(id, "<urn:uuid:") || len(id) != 47 {
		t.Errorf("record %d: record ID %q", i, id)
	}
}

func TestMalformedFixtures(t *testing.T) {
	a, b := "first body\r\nline two", "second body"
	tests := []struct {
		file      string
		bodies    []string
		problems  bool // whether problems must be reported
		truncated bool // whether the last body ends in ErrTruncated
	}{
		// <…> around the URI is a known wget quirk: accepted silently.
		{"angle.warc", []string{a, b}, false, false},
		// LF line ends: both records read, the LF separators reported.
		{"lf.warc", []string{a, b}, true, false},
		// Content-Length one short: the body is cut by one byte, the stray
		// byte is skipped and the next record found.
		{"short.warc", []string{a[:len(a)-1], b}, true, false},
		// Content-Length one long: the body takes the first CR of the
		// separator; the next record is still found.
		{"long.warc", []string{a + "\r", b}, true, false},
		// Missing separators: records are found at the next version line.
		{"nosep.warc", []string{a, b}, true, false},
		// Junk before and between records is skipped and reported.
		{"junk.warc", []string{a, b}, true, false},
		// Last record cut: its available bytes come with ErrTruncated.
		{"truncated.warc", []string{a, b[:len(b)-6]}, false, true},
		// A header cut short by the next record's version line: the cut
		// record is dropped, the next one read.
		{"interrupted.warc", []string{b}, true, false},
		// A header line over MaxLineSize rejects that record only.
		{"longline.warc", []string{a, b}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, layout := range []string{"plain", "gzip"} {
				in := data
				if layout == "gzip" {
					in = gzipAll(data)
				}
				recs, rd := readAll(t, in)
				checkFixture(t, layout, recs, tt.bodies, tt.truncated)
				if tt.problems != (len(rd.Problems()) > 0) {
					t.Errorf("%s: problems %v, want some: %v", layout, rd.Problems(), tt.problems)
				}
			}
		})
	}
}

func checkFixture(t *testing.T, layout string, recs []got, bodies []string, truncated bool) {
	t.Helper()
	if len(recs) != len(bodies) {
		t.Fatalf("%s: got %d records, want %d", layout, len(recs), len(bodies))
	}
	for i, g := range recs {
		if string(g.body) != bodies[i] {
			t.Errorf("%s: record %d body %q, want %q", layout, i, g.body, bodies[i])
		}
		last := i == len(recs)-1
		if isTruncated(g.bodyErr) != (truncated && last) || (g.bodyErr != nil && !isTruncated(g.bodyErr)) {
			t.Errorf("%s: record %d body error %v", layout, i, g.bodyErr)
		}
		if !strings.HasPrefix(g.rec.TargetURI, "http://example.com/") {
			t.Errorf("%s: record %d target URI %q", layout, i, g.rec.TargetURI)
		}
	}
}
