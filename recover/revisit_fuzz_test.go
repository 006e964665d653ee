package recover_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// FuzzRevisitRecords: an original page and a revisit record whose
// references and stored headers are anything. Expected: no panic; a
// revisit names an original delivered before it, holding exactly its
// bytes, and every other capture is the original or reported unreadable.
func FuzzRevisitRecords(f *testing.F) {
	f.Add("<urn:uuid:1>", "<urn:uuid:1>", "https://example.org/", "2026-01-01T00:00:00Z", "sha1:ABC", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	f.Add("<urn:uuid:1>", "", "<https://example.org/>", "2026-01-01T00:00:00Z", "", "")
	f.Add("x", "y", "", "", "sha1:abc", "HTTP/1.1 304 Not Modified\r\n\r\n")
	f.Add("<urn:uuid:1>", "<urn:uuid:2>", "https://example.org/", "junk", "SHA1:abc", "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n")
	original := []byte("<html><body><p>the original</p></body></html>")
	f.Fuzz(func(t *testing.T, id, refersTo, refURI, refDate, digest, block string) {
		var b bytes.Buffer
		w := warc.NewWriter(&b, false)
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		msg := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + string(original)
		if w.WriteRecord(warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Record-ID", Value: id},
			{Name: "WARC-Target-URI", Value: "https://example.org/"}, {Name: "WARC-Date", Value: at.Format(time.RFC3339)},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}, {Name: "WARC-Payload-Digest", Value: "sha1:abc"}}, []byte(msg)) != nil {
			return // a value the writer refuses (a line break)
		}
		if w.WriteRecord(warc.Header{{Name: "WARC-Type", Value: "revisit"}, {Name: "WARC-Target-URI", Value: "https://example.org/index.html"},
			{Name: "WARC-Date", Value: at.Add(time.Hour).Format(time.RFC3339)}, {Name: "WARC-Refers-To", Value: refersTo},
			{Name: "WARC-Refers-To-Target-URI", Value: refURI}, {Name: "WARC-Refers-To-Date", Value: refDate},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}, {Name: "WARC-Payload-Digest", Value: digest}}, []byte(block)) != nil {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.warc"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		pages := map[string][]byte{}
		source.WARCSource{Path: dir}.Stream(context.Background(), nil, func(c lzrecover.Capture, page []byte) error {
			pages[c.Locator] = page
			switch {
			case c.Unreadable != nil:
			case c.Original != "" && (page != nil || !bytes.Equal(pages[c.Original], original)):
				t.Fatalf("revisit %s: %q and original %q", c.URL, page, pages[c.Original])
			case c.Original == "" && !bytes.Equal(page, original):
				t.Fatalf("%s: %q, not the original", c.URL, page)
			}
			return nil
		})
	})
}
