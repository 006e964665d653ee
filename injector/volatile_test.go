package injector

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// wpDump is a dump in mysqldump's --skip-extended-insert shape: a dated
// trailer, a transient row and a cron row that WordPress rewrites on
// visits, and the posts.
func wpDump(date, transient, posts string) string {
	return "-- MariaDB dump 10.19\n" +
		"INSERT INTO `wp_options` VALUES (1,'siteurl','http://example.org','yes');\n" +
		"INSERT INTO `wp_options` VALUES (120,'_transient_wp_styles','" + transient + "','yes');\n" +
		"INSERT INTO `wp_options` VALUES (121,'cron','a:1:{i:" + transient + ";}','yes');\r\n" +
		"INSERT INTO `wp_posts` VALUES " + posts + ";\n" +
		"-- Dump completed on " + date // no final newline
}

// wpVolatile are the patterns of wpDump's volatile lines.
var wpVolatile = []string{`^-- Dump completed on `, "^INSERT INTO `wp_options` VALUES \\(\\d+,'(_site)?_transient_", "^INSERT INTO `wp_options` VALUES \\(\\d+,'cron',"}

// TestVolatileLinesMakeNoGeneration: a dump whose output differs from the
// last one only in lines its volatile patterns match makes no new
// generation, in separate segments and all-or-nothing alike, and what is
// restored is the preserved output byte for byte; a change elsewhere
// makes a generation that keeps the dump's segment, listing what it
// holds; a change in substance makes a generation with the new output.
func TestVolatileLinesMakeNoGeneration(t *testing.T) {
	for _, allOrNothing := range []bool{false, true} {
		name := "segments"
		if allOrNothing {
			name = "all or nothing"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 20, 3)
			hour := 0
			run := func(dump string) *Report {
				t.Helper()
				f.write(t, "db.sql", dump)
				o := f.options()
				o.AllOrNothing = allOrNothing
				o.Dumps = []Dump{{Name: "db", Command: "cat " + filepath.Join(f.dir, "db.sql"), Volatile: wpVolatile}}
				o.Now = func() time.Time { return time.Date(2026, 11, 21, hour, 0, 0, 0, time.UTC) }
				hour++
				res, err := Run(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			first := wpDump("2026-11-21 12:00:00", "1764000000", "(1,'Hello world!')")
			gen := run(first).Generation
			for _, later := range []string{
				wpDump("2026-11-21 12:01:00", "1764000060", "(1,'Hello world!')"),
				wpDump("2026-11-21 12:02:00", "1764000120", "(1,'Hello world!')"),
			} {
				if res := run(later); res.New || res.Generation != gen {
					t.Fatalf("volatile lines changed: generation %s (new %v), want %s kept", res.Generation, res.New, gen)
				}
			}
			checkNoPlainHashes(t, filepath.Join(f.dir, "state"), []byte(first))
			checkRestored(t, f, "db", first)

			if !allOrNothing { // a change elsewhere keeps the dump's segment and lists what it holds
				f.write(t, "src/app/new.php", "<?php // new\n")
				res := run(wpDump("2026-11-21 12:03:00", "1764000180", "(1,'Hello world!')"))
				if !res.New {
					t.Fatal("a new file made no generation")
				}
				checkRestored(t, f, "db", first)
				checkRestored(t, f, "app/new.php", "<?php // new\n")
				checkListing(t, f)
			}

			changed := wpDump("2026-11-21 12:04:00", "1764000240", "(1,'Hello world!'),(2,'A second post')")
			if res := run(changed); !res.New {
				t.Fatal("a new post made no generation")
			}
			checkRestored(t, f, "db", changed)
		})
	}
}

// checkRestored recovers the fixture's site and checks that path holds
// want, byte for byte.
func checkRestored(t *testing.T, f *fixture, path, want string) {
	t.Helper()
	_, out := f.recover(t)
	got, err := os.ReadFile(filepath.Join(out, path))
	if err != nil || string(got) != want {
		t.Fatalf("restored %s: %q, %v; want %q", path, got, err, want)
	}
}

// checkListing has lazarus verify's trial restore (owner key) compare
// every restored file with the generation's listing: a kept segment is
// listed with what it holds, not what the last run dumped.
func checkListing(t *testing.T, f *fixture) {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(f.dir, "site"))))
	defer srv.Close()
	rep, err := verify.Run(context.Background(), verify.Options{SiteURL: srv.URL + "/", OwnerKey: f.owner, Rate: 600000})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if tr := rep.Restore; tr == nil || tr.Files == 0 || len(tr.Mismatches) > 0 || len(tr.Skipped) > 0 {
		t.Fatalf("trial restore %+v: want every file as listed", tr)
	}
}

// TestVolatileSubstance: the substance of an output leaves out exactly
// the lines a pattern matches (with "\n" or "\r\n" endings, the last line
// without one), keeps lines too long to match, and sees an output whose
// volatile line became a kept one as changed.
func TestVolatileSubstance(t *testing.T) {
	vol, err := compileVolatile([]string{`^-- Dump completed`, `^SKIP$`})
	if err != nil {
		t.Fatal(err)
	}
	sum := func(s string) [32]byte {
		t.Helper()
		d, err := vol.substance(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := sum("a\nb\n")
	for _, same := range []string{"a\n-- Dump completed on 1\nb\n", "a\nSKIP\r\nb\n", "a\nb\n-- Dump completed on 2", "SKIP\na\nb\n"} {
		if sum(same) != base {
			t.Errorf("%q: substance differs from %q", same, "a\nb\n")
		}
	}
	for _, other := range []string{"a\nb", "a\nb\nc\n", "a\nSKIP it\nb\n", "a\n\nb\n"} {
		if sum(other) == base {
			t.Errorf("%q: same substance as %q", other, "a\nb\n")
		}
	}
	long := "-- Dump completed " + strings.Repeat("x", maxVolatileLine) + "\n"
	if sum("a\nb\n"+long) == base {
		t.Error("a line too long to match was left out")
	}
	if sum("a\nb\n"+long) != sum("a\nb\n"+long) {
		t.Error("substance of a long line is not deterministic")
	}
}

// TestVolatileBadPattern: a pattern that does not compile is an option
// error naming the dump.
func TestVolatileBadPattern(t *testing.T) {
	f := newFixture(t, 4, 1)
	o := f.options()
	o.Dumps = []Dump{{Name: "db", Command: "true", Volatile: []string{"(unclosed"}}}
	_, err := Run(context.Background(), o)
	var oe *OptionsError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), `dump db: volatile pattern "(unclosed"`) {
		t.Fatalf("got %v, want an options error naming the pattern", err)
	}
}

// TestVolatileEveryLineRefused: patterns that match every line of a
// dump's output (an empty pattern, "^", ".*", "$" all do) would leave
// nothing to compare, so no later change to the dump would ever make a
// generation: the run fails naming the dump, and nothing is written.
func TestVolatileEveryLineRefused(t *testing.T) {
	for _, pattern := range []string{"", "^", ".*", "$"} {
		f := newFixture(t, 4, 1)
		f.write(t, "db.sql", "CREATE TABLE t(x);\nINSERT INTO t VALUES (1);\n")
		o := f.options()
		o.Dumps = []Dump{{Name: "db", Command: "cat " + filepath.Join(f.dir, "db.sql"), Volatile: []string{`^-- `, pattern}}}
		_, err := Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), "dump db: every line of its output matches a volatile pattern") {
			t.Errorf("pattern %q: got %v, want the dump refused", pattern, err)
		}
		if _, err := os.Stat(filepath.Join(f.dir, "state", "state.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("pattern %q: state written (%v)", pattern, err)
		}
	}
}

// TestSealedListingHoldsVolatileDumpsOnly: the state keeps, sealed, the
// listing entries of a segment's volatile dumps alone, since a segment
// kept by its substance lists every other file as the run packed it: an
// all-or-nothing segment of many files keeps one entry, and a run whose
// dump changed in volatile lines only still lists every file as packed.
func TestSealedListingHoldsVolatileDumpsOnly(t *testing.T) {
	f := newFixture(t, 20, 200)
	hour := 0
	run := func(dump string) Options {
		t.Helper()
		f.write(t, "db.sql", dump)
		o := f.options()
		o.AllOrNothing = true
		o.Dumps = []Dump{{Name: "db", Command: "cat " + filepath.Join(f.dir, "db.sql"), Volatile: wpVolatile}}
		o.Now = func() time.Time { return time.Date(2026, 11, 21, hour, 0, 0, 0, time.UTC) }
		hour++
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	run(wpDump("2026-11-21 12:00:00", "1764000000", "(1,'Hello world!')"))
	o := run(wpDump("2026-11-21 12:01:00", "1764000060", "(1,'Hello world!')"))
	st, err := loadState(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := o.sealer(st)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := o.loadStateKey(sealer)
	if err != nil {
		t.Fatal(err)
	}
	seg := st.current().segment(allOrNothingSegment)
	if seg == nil || len(seg.Listed) == 0 {
		t.Fatalf("segment %q: no sealed listing entries", allOrNothingSegment)
	}
	kept, err := key.openListed(seg.Listed, nil)
	if err == nil || !strings.Contains(err.Error(), `"db"`) {
		t.Fatalf("opened against no files: %v, %v; want the dump's entry alone, not found", kept, err)
	}
	files := []manifest.File{{Path: "db"}, {Path: "app/x"}}
	kept, err = key.openListed(seg.Listed, files)
	if err != nil || len(kept) != 2 || kept[0].SHA256 == nil || kept[1] != files[1] {
		t.Fatalf("opened: %+v, %v; want the dump's entry in place and the other file as given", kept, err)
	}
	checkListing(t, f)
}
