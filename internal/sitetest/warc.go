package sitetest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// ResponseWARC writes caps as response records to path, each with a record
// id made from its URL, and returns the ids by URL.
func ResponseWARC(t testing.TB, path string, caps []archivetest.Capture) map[string]string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	ids := map[string]string{}
	for i, c := range caps {
		ids[c.URL] = fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i+1)
		msg := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(c.Body), c.Body)
		h := warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Record-ID", Value: ids[c.URL]}, {Name: "WARC-Target-URI", Value: c.URL},
			{Name: "WARC-Date", Value: c.Time.UTC().Format(time.RFC3339)}, {Name: "Content-Type", Value: "application/http; msgtype=response"},
			{Name: "WARC-Payload-Digest", Value: "sha1:" + archivetest.Digest(c.Body)}}
		if err := w.WriteRecord(h, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// RevisitWARC writes, for each capture, a revisit record at at of
// url(c) naming c as its original the way how says: "id" (WARC-Refers-To),
// "uri" (-Target-URI and -Date) or "digest" (the payload digest alone).
func RevisitWARC(t testing.TB, path string, caps []archivetest.Capture, ids map[string]string, how string, at time.Time, url func(archivetest.Capture) string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	for _, c := range caps {
		h := warc.Header{{Name: "WARC-Type", Value: "revisit"}, {Name: "WARC-Target-URI", Value: url(c)}, {Name: "WARC-Date", Value: at.UTC().Format(time.RFC3339)},
			{Name: "WARC-Profile", Value: "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}, {Name: "WARC-Payload-Digest", Value: "sha1:" + archivetest.Digest(c.Body)}}
		switch how {
		case "id":
			h = append(h, warc.Field{Name: "WARC-Refers-To", Value: ids[c.URL]})
		case "uri":
			h = append(h, warc.Field{Name: "WARC-Refers-To-Target-URI", Value: c.URL}, warc.Field{Name: "WARC-Refers-To-Date", Value: c.Time.UTC().Format(time.RFC3339)})
		}
		msg := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" // headers only
		if err := w.WriteRecord(h, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
}
