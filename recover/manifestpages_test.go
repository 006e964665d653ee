package recover_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestNewerManifestOnOneHopPagesOnly: the root page was last archived
// under generation 1; the pages it links to were archived again after
// generation 2 was made, some of them carrying its manifest (a light plan
// puts it on the root and a few one-hop pages), the rest generation 1's
// blocks, kept beside generation 2's (make-before-break). Generation 1 is
// complete from those newer captures, but recovery restores generation 2:
// it reads the newest capture of each page the root links to before
// settling.
func TestNewerManifestOnOneHopPagesOnly(t *testing.T) {
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 11)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	inject := func(g int, kept map[string]float64) *injector.Report {
		noise := make([]byte, 3000)
		rand.Read(noise)
		sitetest.WriteFile(t, s.Dir, "src/app/version.txt", []byte(fmt.Sprintf("version %d\n", g)))
		sitetest.WriteFile(t, s.Dir, "src/app/blob.bin", noise)
		now := base.Add(time.Duration(g) * 24 * time.Hour)
		o := s.DefaultOptions("https://example.org/")
		o.Includes, o.Capture = s.Include("app"), kept
		o.Now = func() time.Time { return now }
		return sitetest.Inject(t, o)
	}
	// Generation 1's blocks on p0–p4, generation 2's manifest on p8–p10.
	r1 := inject(1, map[string]float64{"/p0.html": 0.9, "/p1.html": 0.9, "/p2.html": 0.9, "/p3.html": 0.9, "/p4.html": 0.9})
	caps := sitetest.CapturesOf(t, s.Pages(), base.Add(25*time.Hour))
	r2 := inject(2, map[string]float64{"/p8.html": 0.9, "/p9.html": 0.9, "/p10.html": 0.9})
	for _, c := range sitetest.CapturesOf(t, s.Pages(), base.Add(49*time.Hour)) {
		if !strings.HasSuffix(c.URL, "/") { // the root is not archived again
			caps = append(caps, c)
		}
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
		OwnerKey: s.Owner.Marshal(), Out: out, SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{source.CDXSource{Base: srv.URL, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})}}})
	v, _ := os.ReadFile(filepath.Join(out, "app/version.txt"))
	if err != nil || rep.Generation != r2.Generation || string(v) != "version 2\n" {
		t.Fatalf("err %v, generation %s (want %s, generation 1 is %s), %q; %d of %d captures read",
			err, rep.Generation, r2.Generation, r1.Generation, v, rep.Pages, rep.Captures)
	}
	t.Logf("%d of %d captures read", rep.Pages, rep.Captures)
}
