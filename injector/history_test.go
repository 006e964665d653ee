package injector

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// TestHistoryRecordsPages: after each run, every page of the site that
// carries a Lazarus comment is in the serve history under its CDX digest
// and served path, with the manifest and exactly the blocks parsed from
// its bytes (the second generation's pages also carry the first one's);
// a run with unchanged sources adds nothing; a dry run records nothing.
func TestHistoryRecordsPages(t *testing.T) {
	f := newFixture(t, 20, 6)
	o := f.options()
	o.SiteURL = "https://example.org/blog/"
	o.MaxBlockBytes = 1 << 10
	f.write(t, "site/sub/index.html", "<html><body><p>Sub</p></body></html>\n")
	f.write(t, "site/index.html", "<html><body>\n<a href=\"sub/\">sub</a>\n"+links(20)+"</body></html>\n")
	res1 := mustRun(t, o)
	checkHistory(t, f, o, 1)

	before := historySnapshot(t, o.StateDir)
	if res := mustRun(t, o); res.New {
		t.Fatal("unchanged sources made a new generation")
	}
	if after := historySnapshot(t, o.StateDir); after != before {
		t.Fatalf("an unchanged run changed the history:\n%s\nwant\n%s", after, before)
	}
	// A lost history (or one from before this feature) is rebuilt by the
	// next run, with each page version dated when it was written.
	if err := os.RemoveAll(filepath.Join(o.StateDir, HistoryDir)); err != nil {
		t.Fatal(err)
	}
	mustRun(t, o)
	for _, rec := range checkHistory(t, f, o, 1).Records {
		if want := o.Now(); !rec.Time.Equal(want) {
			t.Fatalf("%s rebuilt with time %v, want %v (when the page was written)", rec.URL, rec.Time, want)
		}
	}

	f.write(t, "src/app/new.php", "<?php // a change\n")
	o.Now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	res2 := mustRun(t, o)
	if !res2.New || res2.Generation == res1.Generation {
		t.Fatalf("second generation %s after %s, new %v", res2.Generation, res1.Generation, res2.New)
	}
	ix := checkHistory(t, f, o, 2)
	riding := 0
	for _, rec := range ix.Records {
		if len(rec.Blocks[res1.Generation]) > 0 && len(rec.Blocks[res2.Generation]) > 0 {
			riding++
		}
	}
	if riding == 0 {
		t.Error("no page version carries both generations' blocks: the previous generation's were not recorded")
	}

	before = historySnapshot(t, o.StateDir)
	o.DryRun = true
	f.write(t, "src/app/new.php", "<?php // another change\n")
	mustRun(t, o)
	if after := historySnapshot(t, o.StateDir); after != before {
		t.Fatal("a dry run changed the history")
	}
}

// links is the fixture's list of links to its pages p0 … p(n-1).
func links(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<a href=\"p%d.html\">%d</a>\n", i, i)
	}
	return b.String()
}

func mustRun(t *testing.T, o Options) *Report {
	t.Helper()
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 {
		t.Fatalf("warnings: %q", res.Warnings)
	}
	return res
}

// checkHistory loads the history and checks every page file of the site
// against it; it wants gens manifests and no damage.
func checkHistory(t *testing.T, f *fixture, o Options, gens int) *history.Index {
	t.Helper()
	ix, err := history.Load(context.Background(), history.Dir(filepath.Join(o.StateDir, HistoryDir)))
	if err != nil {
		t.Fatal(err)
	}
	if ix.Skipped != 0 || ix.Truncated || len(ix.Manifests) != gens {
		t.Fatalf("history: %d skipped, truncated %v, %d manifests; want none, false, %d", ix.Skipped, ix.Truncated, len(ix.Manifests), gens)
	}
	site := filepath.Join(f.dir, "site")
	carriers := 0
	filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(site, p)
		want := "/blog/" + strings.TrimSuffix(filepath.ToSlash(rel), "index.html")
		found, gen := pageComments(t, page)
		rec, ok := ix.Lookup(history.SHA1.Of(page).String())
		if !ok {
			if len(found) > 0 || gen != "" {
				t.Errorf("%s: carries %d blocks but its digest is not in the history", want, len(found))
			}
			return nil
		}
		carriers++
		if by256, ok := ix.Lookup(history.SHA256.Of(page).String()); !ok || by256.Digest != rec.Digest {
			t.Errorf("%s: not found by its SHA-256 (%v)", want, ok)
		}
		if rec.URL != want || rec.Manifest != gen || rec.Time.IsZero() {
			t.Errorf("%s: recorded as %s, manifest %q, time %v; want manifest %q", want, rec.URL, rec.Manifest, rec.Time, gen)
		}
		if got := recordedBlocks(t, ix, rec); !equalOrdered(got, found) {
			t.Errorf("%s: recorded blocks %v, page carries %v", want, got, found)
		}
		return nil
	})
	if carriers < 10 {
		t.Fatalf("only %d pages found in the history", carriers)
	}
	return ix
}

// pageComments parses a page's comments with the reader's parsers: its
// blocks as "SEGMENTID:segment/stripe/shard", in page order, and the
// generation of the manifest it carries.
func pageComments(t *testing.T, page []byte) (blocks []string, gen string) {
	t.Helper()
	for c := range htmlblock.All(page) {
		if c.Err != nil {
			t.Fatalf("damaged comment at %d: %v", c.Offset, c.Err)
		}
		switch c.Kind {
		case htmlblock.KindManifest:
			signed, err := manifest.Parse(c.Payload)
			if err != nil {
				t.Fatal(err)
			}
			gen = signed.Manifest.Generation.String()
		case htmlblock.KindBlock:
			b, err := block.Parse(c.Payload)
			if err != nil {
				t.Fatal(err)
			}
			ref := manifest.BlockRef{Segment: b.Name, Stripe: b.Stripe, Shard: b.Shard}
			blocks = append(blocks, fmt.Sprintf("%x:%s", b.SegmentID, ref))
		}
	}
	return blocks, gen
}

// recordedBlocks maps a record's blocks to "SEGMENTID:ref" through the
// recorded manifest of each generation, one generation after the other.
func recordedBlocks(t *testing.T, ix *history.Index, rec history.Record) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for gen, refs := range rec.Blocks {
		signed, err := manifest.Parse(ix.Manifests[gen])
		if err != nil {
			t.Fatalf("%s names generation %s, whose manifest is not recorded: %v", rec.URL, gen, err)
		}
		for _, s := range refs {
			var ref manifest.BlockRef
			if err := ref.UnmarshalText([]byte(s)); err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(signed.Manifest.Segments, func(seg manifest.Segment) bool { return seg.Name == ref.Segment })
			if i < 0 {
				t.Fatalf("%s: block %s of generation %s: no such segment", rec.URL, s, gen)
			}
			out[gen] = append(out[gen], fmt.Sprintf("%x:%s", signed.Manifest.Segments[i].ID[:], s))
		}
	}
	return out
}

// equalOrdered reports whether the page's blocks are exactly the
// recorded ones, each generation's in the page's order.
func equalOrdered(rec map[string][]string, page []string) bool {
	n := 0
	for _, refs := range rec {
		n += len(refs)
		var sub []string
		for _, p := range page {
			if slices.Contains(refs, p) {
				sub = append(sub, p)
			}
		}
		if !slices.Equal(sub, refs) {
			return false
		}
	}
	return n == len(page)
}

// historySnapshot lists the history's files with their contents.
func historySnapshot(t *testing.T, stateDir string) string {
	t.Helper()
	dir := filepath.Join(stateDir, HistoryDir)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return treeSnapshot(t, dir)
}

// TestHistoryNotRecordedWhenStopped: a run cancelled before its state is
// saved, and one aborted while staging the pages, record nothing; the
// run that then writes the pages records them.
func TestHistoryNotRecordedWhenStopped(t *testing.T) {
	f := newFixture(t, 40, 4)
	o := f.options()
	ctx, cancel := context.WithCancel(context.Background())
	o.Progress = func(p Progress) {
		if p.Phase == PhaseSave {
			cancel()
		}
	}
	if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if s := historySnapshot(t, o.StateDir); s != "" {
		t.Fatalf("a cancelled run recorded:\n%s", s)
	}

	abort := make(chan struct{})
	stop := sync.OnceFunc(func() { close(abort) })
	writes := 0
	o.Abort, o.Progress = abort, func(p Progress) {
		if p.Phase == PhaseWrite {
			if writes == 20 { // half way through staging the pages
				stop()
			}
			writes++
		}
	}
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrWriteInterrupted) {
		t.Fatalf("got %v, want ErrWriteInterrupted", err)
	}
	if s := historySnapshot(t, o.StateDir); s != "" {
		t.Fatalf("an aborted run recorded:\n%s", s)
	}

	o.Abort, o.Progress = nil, nil
	if res := mustRun(t, o); !res.Completed {
		t.Fatal("the next run did not complete the saved generation")
	}
	ix, err := history.Load(context.Background(), history.Dir(filepath.Join(o.StateDir, HistoryDir)))
	if err != nil || len(ix.Records) < 10 || len(ix.Manifests) != 1 {
		t.Fatalf("after the completing run: %v, %d records, %d manifests", err, len(ix.Records), len(ix.Manifests))
	}
}
