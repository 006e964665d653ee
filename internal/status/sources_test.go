package status_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestXHTMLCapturesAreListed: captures served as application/xhtml+xml
// (inject puts carriers in .xhtml files) are listed by both archives'
// listings, and recover finds them too.
func TestXHTMLCapturesAreListed(t *testing.T) {
	xhtml := func(cs []archivetest.Capture) []archivetest.Capture {
		for i := range cs {
			cs[i].MIME = "application/xhtml+xml"
		}
		return cs
	}
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), xhtml(w.g2.plant(statusT2.Add(day), "", w.g2.names()...))...)
		w.cc = xhtml(w.g2.plant(statusT2.Add(day), archivetest.DefaultCrawl, "p1.html"))
	})
	rep := w.status(t, true, "")
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
		t.Fatalf("status: restore point %+v, want generation 2", rp)
	}
	if rep.Sources[0].Captures != len(w.wayback) || rep.Sources[1].Captures != len(w.cc) {
		t.Fatalf("listed %d and %d captures, planted %d and %d", rep.Sources[0].Captures, rep.Sources[1].Captures, len(w.wayback), len(w.cc))
	}
	rrep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: w.site.Owner.Marshal(), Out: t.TempDir(),
		SiteURL: "https://example.org/", Sources: w.sources[:1]})
	if err != nil || rrep.Generation != w.g2.id {
		t.Fatalf("recover: %v, generation %q, want %s", err, rrep.Generation, w.g2.id)
	}
}

// TestArchiveSourcesRefuseLive: the live site is refused, and an unknown
// kind's error lists only the archives.
func TestArchiveSourcesRefuseLive(t *testing.T) {
	if _, err := source.ParseArchive("live", nil); err == nil || !strings.Contains(err.Error(), "not an archive") {
		t.Fatalf("live: %v", err)
	}
	_, err := source.ParseArchive("ftp=x", nil)
	if err == nil || !strings.Contains(err.Error(), source.ArchiveKinds) || strings.Contains(err.Error(), "live") {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := source.Parse("ftp=x", nil); err == nil || !strings.Contains(err.Error(), "live") {
		t.Fatalf("recover's unknown kind: %v", err)
	}
	if src, err := source.ParseArchive("warc=x.warc", nil); err != nil || src.Name() != "warc=x.warc" {
		t.Fatalf("warc: %v, %v", src, err)
	}
}
