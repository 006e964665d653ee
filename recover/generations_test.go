package recover_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestThreeGenerations: an archive holds captures of three generations,
// the newest only partly. Recovery restores the newest complete one (a
// coherent restore point), --at goes back in time, and asking for the
// incomplete one says what is short.
func TestThreeGenerations(t *testing.T) {
	dir := t.TempDir()
	linkedSite(t, dir, 11)
	owner, server, _ := keys.Generate(true)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var caps []archivetest.Capture
	var gens []string
	for g := 1; g <= 3; g++ {
		noise := make([]byte, 15000)
		rand.Read(noise)
		writeFile(t, dir, "src/app/version.txt", []byte(fmt.Sprintf("version %d\n", g)))
		writeFile(t, dir, "src/app/blob.bin", noise)
		now := base.Add(time.Duration(g) * 30 * 24 * time.Hour)
		o := injector.DefaultOptions()
		o.Includes = []injector.Include{{Path: filepath.Join(dir, "src/app")}}
		o.ServerKey, o.SiteURL, o.MaxBlockBytes = server.Marshal(), "https://example.org/", 1024
		o.SiteDir, o.StateDir, o.KeepPrevious = filepath.Join(dir, "site"), filepath.Join(dir, "state"), 0
		o.Now = func() time.Time { return now }
		res, err := injector.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, res.Generation)
		pages := capturesOf(t, filepath.Join(dir, "site"), now.Add(time.Hour))
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
		rep, err := lzrecover.Recover(context.Background(), lzrecover.Options{
			OwnerKey: owner.Marshal(), Out: out, Site: "https://example.org/", At: at, Generation: gen,
			Sources: []lzrecover.Source{lzrecover.CDXSource{Base: srv.URL, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})}}})
		v, _ := os.ReadFile(filepath.Join(out, "app/version.txt"))
		return rep, string(v), err
	}
	rep, v, err := run(time.Time{}, "")
	if err != nil || rep.Generation != gens[1] || v != "version 2\n" {
		t.Fatalf("latest: err %v, generation %s (want %s), %q", err, rep.Generation, gens[1], v)
	}
	rep, v, err = run(base.Add(45*24*time.Hour), "")
	if err != nil || rep.Generation != gens[0] || v != "version 1\n" {
		t.Fatalf("--at: err %v, generation %s (want %s), %q", err, rep.Generation, gens[0], v)
	}
	rep, _, err = run(time.Time{}, gens[2])
	if !errors.Is(err, lzrecover.ErrPartial) || len(rep.Segments) != 1 || rep.Segments[0].Status != "short" {
		t.Fatalf("generation 3: err %v, %+v", err, rep.Segments)
	}
}
