package recover_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestThreeGenerations: an archive holds captures of three generations,
// the newest only partly. Recovery restores the newest complete one (a
// coherent restore point), --at goes back in time, and asking for the
// incomplete one says what is short.
func TestThreeGenerations(t *testing.T) {
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 11)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var caps []archivetest.Capture
	var gens []string
	for g := 1; g <= 3; g++ {
		noise := make([]byte, 15000)
		rand.Read(noise)
		sitetest.WriteFile(t, s.Dir, "src/app/version.txt", []byte(fmt.Sprintf("version %d\n", g)))
		sitetest.WriteFile(t, s.Dir, "src/app/blob.bin", noise)
		now := base.Add(time.Duration(g) * 30 * 24 * time.Hour)
		o := s.Options("https://example.org/")
		o.Includes, o.KeepPrevious = s.Include("app"), 0
		o.Now = func() time.Time { return now }
		gens = append(gens, sitetest.Inject(t, o).Generation)
		pages := sitetest.CapturesOf(t, s.Pages(), now.Add(time.Hour))
		if g == 3 { // the newest generation is barely archived
			pages = pages[:2]
		}
		caps = append(caps, pages...)
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run := func(at time.Time, gen string) (*lzrecover.Report, string, error) {
		out := t.TempDir()
		rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
			OwnerKey: s.Owner.Marshal(), Out: out, SiteURL: "https://example.org/", At: at, Generation: gen,
			Sources: []lzrecover.Source{source.CDXSource{Base: srv.URL, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})}}})
		v, _ := os.ReadFile(filepath.Join(out, "app/version.txt"))
		return rep, string(v), err
	}
	// The newest generation whose manifest verified cannot be rebuilt:
	// restoring the one before is a rollback, exit 3, and says so.
	rep, v, err := run(time.Time{}, "")
	if !errors.Is(err, lzrecover.ErrOlder) || !errors.Is(err, lzrecover.ErrPartial) || rep.Generation != gens[1] || v != "version 2\n" {
		t.Fatalf("latest: err %v, generation %s (want %s), %q", err, rep.Generation, gens[1], v)
	}
	if len(rep.Newer) != 1 || rep.Newer[0].Generation != gens[2] || !strings.Contains(rep.Newer[0].Detail, `segment "app"`) {
		t.Fatalf("newer: %+v", rep.Newer)
	}
	rep, v, err = run(base.Add(45*24*time.Hour), "")
	if err != nil || len(rep.Newer) != 0 || rep.Generation != gens[0] || v != "version 1\n" {
		t.Fatalf("--at: err %v, generation %s (want %s), %q", err, rep.Generation, gens[0], v)
	}
	rep, _, err = run(time.Time{}, gens[2])
	if !errors.Is(err, lzrecover.ErrPartial) || len(rep.Segments) != 1 || rep.Segments[0].Status != "short" {
		t.Fatalf("generation 3: err %v, %+v", err, rep.Segments)
	}
}

// TestMixedRestorePoint: the first generation's manifest was never
// archived, the second's "etc" segment is short. Each segment is restored
// from its newest complete version, and the outcome is exit 3 saying which
// segment comes from which generation, never a silent success.
func TestMixedRestorePoint(t *testing.T) {
	owner, server, _ := keys.Generate(true)
	g1 := crafted{gen: craftGen}
	g2 := crafted{gen: codec.Generation{ID: manifest.ID{0xC2}, Time: craftGen.Time.Add(24 * time.Hour)}, previous: &craftGen.ID,
		tamper: func(b *block.Block, enc []byte) []byte {
			if b.Name == "etc" && b.Shard > 0 {
				return nil // archived too rarely
			}
			return enc
		}}
	input := func(v string) []codec.Input {
		return []codec.Input{
			{Name: "app", Entries: []bundle.Entry{dirEntry("app"), fileEntry("app/v", "app "+v+"\n")}},
			{Name: "etc", Entries: []bundle.Entry{dirEntry("etc"), fileEntry("etc/v", "etc "+v+"\n")}},
		}
	}
	p1 := g1.make(t, server.Sealer(), input("1")...)
	delete(p1, "index.html") // the only page with its manifest
	p2 := g2.make(t, server.Sealer(), input("2")...)
	out := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner.Marshal(), Out: out,
		Sources: []lzrecover.Source{source.DirSource{Dir: writePages(t, p1)}, source.DirSource{Dir: writePages(t, p2)}}})
	if !errors.Is(err, lzrecover.ErrNotCoherent) || !errors.Is(err, lzrecover.ErrPartial) || rep.Generation != "" {
		t.Fatalf("want a mixed restore point reported, got %v (generation %q)", err, rep.Generation)
	}
	for _, want := range []string{`segment "app" from generation c2`, `segment "etc" from generation c1`, "newer generation c2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	for name, want := range map[string]string{"app/v": "app 2\n", "etc/v": "etc 1\n"} {
		if b, _ := os.ReadFile(filepath.Join(out, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}
