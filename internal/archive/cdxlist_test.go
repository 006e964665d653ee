package archive

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// TestListDefaultFiltersXHTML: the default filters keep HTML and XHTML
// captures with status 200 and drop other types and statuses (XHTML
// carriers were once dropped).
func TestListDefaultFiltersXHTML(t *testing.T) {
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	caps := []archivetest.Capture{
		{URL: "http://example.org/a.html", Time: at, MIME: "text/html", Body: []byte("a")},
		{URL: "http://example.org/b.xhtml", Time: at, MIME: "application/xhtml+xml", Body: []byte("b")},
		{URL: "http://example.org/c.png", Time: at, MIME: "image/png", Body: []byte("c")},
		{URL: "http://example.org/d.xhtml", Time: at, MIME: "application/xhtmlXxml", Body: []byte("d")},
		{URL: "http://example.org/e.html", Time: at, MIME: "text/html", Status: 404, Body: []byte("e")},
		{URL: "http://example.org/f.html", Time: at, MIME: "text/html; charset=utf-8", Body: []byte("f")},
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var got []string
	err = List(context.Background(), http.DefaultClient, srv.URL, "example.org/", ListOptions{}, func(c Capture) error {
		got = append(got, c.URL+" "+c.MIME)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://example.org/a.html text/html", "http://example.org/b.xhtml application/xhtml+xml"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("listed %q, want %q", got, want)
	}
}
