package recover_test

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

func TestFromDir(t *testing.T) {
	site, owner := sitetest.Injected(t)
	out := filepath.Join(t.TempDir(), "out")
	rep, err := sitetest.RecoverDir(site, lzrecover.Options{OwnerKey: owner, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Generation == "" || len(rep.Segments) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, sg := range rep.Segments { // the report says where each segment's files are
		if len(sg.Paths) != 1 || sg.Paths[0] != sg.Name {
			t.Fatalf("segment %s restored to %q", sg.Name, sg.Paths)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
		t.Fatalf("app.conf: %q %v", b, err)
	}
}

// TestFromDirOutcomes: each way a recovery can fall short gets its error
// and a report that says why.
func TestFromDirOutcomes(t *testing.T) {
	site, owner := sitetest.Injected(t)
	other, _, _ := keys.Generate(true)
	t.Run("nothing there", func(t *testing.T) {
		_, err := sitetest.RecoverDir(t.TempDir(), lzrecover.Options{OwnerKey: owner, Out: t.TempDir()})
		if !errors.Is(err, lzrecover.ErrNothingFound) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("someone else's key", func(t *testing.T) {
		// Every block is refused as signed by an unknown key.
		rep, err := sitetest.RecoverDir(site, lzrecover.Options{OwnerKey: other.Marshal(), Out: t.TempDir()})
		if !errors.Is(err, lzrecover.ErrNothingFound) || rep.Rejected == 0 || !strings.Contains(strings.Join(rep.Problems, "\n"), "unknown signer") {
			t.Fatalf("got %v, %+v", err, rep)
		}
	})
	t.Run("most pages lost", func(t *testing.T) {
		// Only the root page and one more survive: some segment is short and
		// the report says by how much.
		kept := t.TempDir()
		for _, name := range []string{"index.html", "p0.html"} {
			b, _ := os.ReadFile(filepath.Join(site, name))
			os.WriteFile(filepath.Join(kept, name), b, 0o644)
		}
		rep, err := sitetest.RecoverDir(kept, lzrecover.Options{OwnerKey: owner, Out: t.TempDir()})
		if err == nil {
			t.Fatal("rebuilt from two pages")
		}
		short := false
		for _, s := range rep.Segments {
			short = short || s.Status == "short" && strings.Contains(s.Detail, "blocks needed")
		}
		if !short {
			t.Fatalf("no short segment explained: %v %+v", err, rep.Segments)
		}
	})
}

// TestStopsWhenComplete: recovery fetches the root page first and stops as
// soon as the newest generation is complete, not after every capture.
func TestStopsWhenComplete(t *testing.T) {
	site, owner := sitetest.Injected(t)
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
		OwnerKey: owner, Out: t.TempDir(), SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{source.DirSource{Dir: site}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Captures != 12 || rep.Pages >= rep.Captures {
		t.Fatalf("fetched %d of %d captures; want fewer than all", rep.Pages, rep.Captures)
	}
}

// brokenSource lists and fetches nothing: an archive that is gone.
type brokenSource struct{ source.DirSource }

// archived is a mirror directory as an archive would give its pages:
// listed, then fetched one by one, and journaled (a mirror's own captures
// are read again instead).
type archived struct{ source.DirSource }

func (b brokenSource) List(context.Context, *url.URL, func(lzrecover.Capture) error) error {
	return errors.New("archive unreachable")
}

func (b brokenSource) Fetch(context.Context, lzrecover.Capture) (io.ReadCloser, error) {
	return nil, errors.New("archive unreachable")
}

// TestResumeFromJournal: a second run with the same state directory needs
// neither the listing nor the captures again.
func TestResumeFromJournal(t *testing.T) {
	site, owner := sitetest.Injected(t)
	state := t.TempDir()
	o := lzrecover.Options{OwnerKey: owner, SiteURL: "https://example.org/", StateDir: state, Out: t.TempDir(),
		Sources: []lzrecover.Source{archived{source.DirSource{Dir: site}}}}
	if _, err := lzrecover.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o.Out = t.TempDir()
	o.Sources = []lzrecover.Source{brokenSource{source.DirSource{Dir: site}}} // same name, now unreachable
	rep, err := lzrecover.Run(context.Background(), o)
	if err != nil {
		t.Fatalf("resume: %v (%+v)", err, rep)
	}
	if _, err := os.Stat(filepath.Join(o.Out, "etc/app.conf")); err != nil {
		t.Fatal(err)
	}
}

// TestMirrorCapturesAreNotJournaled: the pages of a mirror directory are
// read again by a resumed run rather than copied into the state
// directory; its listing is journaled.
func TestMirrorCapturesAreNotJournaled(t *testing.T) {
	site, owner := sitetest.Injected(t)
	state := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, SiteURL: "https://example.org/",
		StateDir: state, Out: t.TempDir(), Sources: []lzrecover.Source{source.DirSource{Dir: site}}})
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := filepath.Glob(filepath.Join(state, "captures", "*"))
	listings, _ := filepath.Glob(filepath.Join(state, "listing-*"))
	if rep.Pages == 0 || len(kept) != 0 || len(listings) != 1 {
		t.Fatalf("%d pages fetched: %d journaled, %d listings", rep.Pages, len(kept), len(listings))
	}
}

// countingSource counts fetches.
type countingSource struct {
	source.DirSource
	fetches *int
}

func (c countingSource) Fetch(ctx context.Context, cp lzrecover.Capture) (io.ReadCloser, error) {
	*c.fetches++
	return c.DirSource.Fetch(ctx, cp)
}

// TestKillAndResume: a run killed after three captures leaves a journal;
// the next run does not fetch those three again.
func TestKillAndResume(t *testing.T) {
	site, owner := sitetest.Injected(t)
	state, fetches := t.TempDir(), 0
	src := countingSource{source.DirSource{Dir: site}, &fetches}
	ctx, kill := context.WithCancel(context.Background())
	o := lzrecover.Options{OwnerKey: owner, SiteURL: "https://example.org/", StateDir: state, Out: t.TempDir(), PagesDir: t.TempDir(),
		Sources: []lzrecover.Source{src},
		Progress: func(p lzrecover.Progress) {
			if p.Fetched == 3 {
				kill()
			}
		}}
	if _, err := lzrecover.Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: %v", err)
	}
	first := fetches
	o.Progress = nil
	rep, err := lzrecover.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again := fetches - first; again != rep.Pages-first || first != 3 {
		t.Fatalf("first run fetched %d, second %d of %d pages: journaled captures were fetched again", first, fetches-first, rep.Pages)
	}
}
