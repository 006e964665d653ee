package recover_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestRecoverFromPywbCollection: a pywb collection, spelled as users
// type it, rebuilds the server side: its endpoint as cdx= (the dialect
// found from the endpoint's form), an -index endpoint answering cdxj,
// and pywb= with the collection's URL and its replay prefix, answering
// text. The listing is one request.
func TestRecoverFromPywbCollection(t *testing.T) {
	site, owner := sitetest.Injected(t)
	client := lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})
	for _, tt := range []struct {
		name string
		cfg  archivetest.PywbConfig
		spec func(s *archivetest.Server) string
	}{
		{"cdx endpoint", archivetest.PywbConfig{}, func(s *archivetest.Server) string { return "cdx=" + s.CDXEndpoint() }},
		{"cdx -index cdxj", archivetest.PywbConfig{Coll: "ukwa", CDXEndpoint: "-index", Output: "cdxj"},
			func(s *archivetest.Server) string { return "cdx=" + s.CDXEndpoint() }},
		{"pywb collection text", archivetest.PywbConfig{Coll: "web", Output: "text"},
			func(s *archivetest.Server) string { return "pywb=" + s.URL + "/web," + s.ReplayPrefix() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := sitetest.PywbOf(t, site, tt.cfg)
			src, err := source.Parse(tt.spec(srv), client)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
				OwnerKey: owner, Out: out, SiteURL: "https://example.org/", Sources: []lzrecover.Source{src}})
			if err != nil {
				t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
			}
			if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
				t.Fatalf("app.conf %q %v", b, err)
			}
			if n := srv.RequestsTo(strings.TrimPrefix(srv.CDXEndpoint(), srv.URL)); n != 1 {
				t.Errorf("%d listing requests, want 1", n)
			}
		})
	}
}

// pywbStatusWorld is the planted history of TestStatusNewestCombined
// with the Wayback's captures served by a pywb collection instead, each
// also revisited a day later (same payload), and the Common Crawl
// source as before. The pywb source is labelled "wayback" so that
