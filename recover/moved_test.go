package recover_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestRecoverMovedSiteFetchesCarriersByPath: a site injected as
// https://example.org/ and now served at another address (a new domain,
// a staging host and port) is recovered from that address: the carriers
// its manifest names are fetched by their paths there, every segment is
// rebuilt, and the report says which site the generation was made for.
// From the live site and from an archive of the new address alike.
func TestRecoverMovedSiteFetchesCarriersByPath(t *testing.T) {
	site, owner := sitetest.Injected(t)
	live := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer live.Close()
	moved := live.URL + "/"
	var caps []archivetest.Capture
	for _, c := range sitetest.CapturesOf(t, site, sitetest.CapturedAt) {
		c.URL = strings.Replace(c.URL, "https://example.org/", moved, 1)
		caps = append(caps, c)
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})
	for name, src := range map[string]lzrecover.Source{
		"live":    source.LiveSource{Client: client},
		"memento": source.MementoSource{TimeMapBase: srv.URL + "/timemap/link/", Client: client},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out, SiteURL: moved,
				Sources: []lzrecover.Source{src}})
			if err != nil {
				t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
			}
			if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
				t.Fatalf("app.conf %q %v", b, err)
			}
			if rep.Generation == "" || rep.MadeFor != "https://example.org/" {
				t.Fatalf("generation %q made for %q, want https://example.org/", rep.Generation, rep.MadeFor)
			}
			if sitetest.HasLine(rep.Problems, "is not on the site") {
				t.Fatalf("carriers refused: %q", rep.Problems)
			}
		})
	}
}
