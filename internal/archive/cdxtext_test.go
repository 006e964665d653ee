package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestParsePywbFixtures: the three shapes of a pywb answer give the same
// captures: a revisit is a capture of its own date without a length (its
// record's is not the page's), statuses given as numbers or "-" are read.
func TestParsePywbFixtures(t *testing.T) {
	want := []Capture{
		{URL: "http://example.org", Time: time.Date(2014, 1, 27, 17, 12, 0, 0, time.UTC), Status: 200, MIME: "text/html",
			Digest: "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", Length: 1046, Replay: "https://h/coll/20140127171200id_/http://example.org"},
		{URL: "http://example.org", Time: time.Date(2014, 1, 27, 17, 12, 51, 0, time.UTC), MIME: "warc/revisit",
			Digest: "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", Replay: "https://h/coll/20140127171251id_/http://example.org"},
		{URL: "http://example.org/about", Time: time.Date(2014, 2, 16, 5, 2, 21, 0, time.UTC), Status: 200, MIME: "text/html",
			Digest: "CIA7G3IXDGRNXFJOMXGN4TQYZLXKGTJZ", Length: 1200, Replay: "https://h/coll/20140216050221id_/http://example.org/about"},
	}
	for _, name := range []string{"pywb.cdxj", "pywb_text.txt", "pywb.ndjson"} {
		t.Run(name, func(t *testing.T) {
			var got []Capture
			sink := &rowSink{replay: "https://h/coll/", accept: htmlRow, emit: func(c Capture) error {
				got = append(got, c)
				return nil
			}}
			if _, err := scanCDX(bytes.NewReader(mustRead(t, name)), sink); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].Offset, got[i].File = 0, ""
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// cdxjLine writes a capture as a cdxj line.
func cdxjLine(c Capture) string {
	status := "-"
	if c.Status != 0 {
		status = fmt.Sprint(c.Status)
	}
	obj, _ := json.Marshal(map[string]string{"url": c.URL, "mime": c.MIME, "status": status, "digest": c.Digest, "length": fmt.Sprint(c.Length)})
	return "k " + FormatTimestamp(c.Time) + " " + string(obj) + "\n"
}

// FuzzScanCDXText: text and cdxj answers never panic, fail only with
// ErrMalformed, and what they give written back as cdxj lines parses to
// the same captures.
func FuzzScanCDXText(f *testing.F) {
	for _, name := range []string{"pywb.cdxj", "pywb_text.txt"} {
		f.Add(mustRead(f, name))
	}
	f.Add([]byte("a 20200101000000 http://a/ text/html 200 D 1\n\nkey\n"))
	f.Add([]byte("a 2020 {\"url\": \"http://a/\", \"status\": 200}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 || bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) ||
			bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("[")) {
			return // NDJSON and arrays: FuzzParseCDXJSON
		}
		var caps []Capture
		collect := func(c Capture) error { caps = append(caps, c); return nil }
		fields := strings.Split(pywbFieldList, ",")
		_, err := scanCDX(bytes.NewReader(data), &rowSink{replay: "http://b/c/", fields: fields, fieldBytes: 1 << 10, emit: collect})
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		first := caps
		var lines strings.Builder
		for _, c := range first {
			if c.Time.Unix() != c.Time.Truncate(time.Second).Unix() {
				t.Fatalf("capture %+v", c)
			}
			if !utf8.ValidString(c.URL + c.MIME + c.Digest) {
				return // JSON cannot carry it: not written back
			}
			lines.WriteString(cdxjLine(c))
		}
		caps = nil
		if _, err := scanCDX(strings.NewReader(lines.String()), &rowSink{replay: "http://b/c/", emit: collect}); err != nil {
			t.Fatalf("written back: %v\n%s", err, lines.String())
		}
		if len(caps) != len(first) {
			t.Fatalf("written back: %d captures, want %d\n%s", len(caps), len(first), lines.String())
		}
		for i := range caps {
			a, b := caps[i], first[i]
			if b.URL != "" && (!strings.HasPrefix(b.Replay, "http://b/c/") || !strings.HasSuffix(b.Replay, "id_/"+b.URL)) {
				t.Fatalf("replay %q of %q", b.Replay, b.URL)
			}
			a.Offset, a.File, a.Replay, b.Offset, b.File, b.Replay = 0, "", "", 0, "", "" // the timestamp was written in full
			if a != b {
				t.Fatalf("capture %d written back:\n%+v\nwas\n%+v", i, a, b)
			}
		}
	})
}
