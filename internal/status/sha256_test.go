package status_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
)

// listSHA256 lists every capture under its SHA-256, in turn in each
// spelling.
func listSHA256(caps []archivetest.Capture) []archivetest.Capture {
	for i := range caps {
		caps[i].Digest = sitetest.SHA256Spelling(i, caps[i].Body)
	}
	return caps
}

// forgetSHA256 rewrites the site's history as a version that kept the
// SHA-1 only would have written it.
func forgetSHA256(t *testing.T, hist history.Dir) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(string(hist), "records", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := history.ParseRecords(b)
		var out []byte
		for _, rec := range recs {
			rec.SHA256 = ""
			line, err := history.Marshal(&rec)
			if err != nil {
				t.Fatal(err)
			}
			out = append(append(out, line...), '\n')
		}
		if err := os.WriteFile(f, out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatusMatchesSHA256Digests: archives that list SHA-256 digests, in
// any spelling, are read from their listings alone, like SHA-1 ones.
// With a history written before records kept the SHA-256, every capture
// is fetched instead, and the verdict is the same.
func TestStatusMatchesSHA256Digests(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = listSHA256(w.g1.plant(statusT1.Add(day), "", w.g1.names()...))
		w.cc = listSHA256(w.g2.plant(statusT2.Add(day), archivetest.DefaultCrawl, w.g2.names()...))
	})
	rep := w.status(t, true, "")
	w.checkStripes(t, rep)
	if n := w.srvW.RequestsTo("/web/") + w.srvC.RequestsTo("/crawl-data/"); n != 0 {
		t.Fatalf("%d captures fetched, want 0: %q", n, rep.Notes)
	}
	for _, c := range rep.Captures {
		if c.How != status.HowHistory {
			t.Fatalf("%s %s (%s): %q, want %q", c.Source, c.URL, c.Digest, c.How, status.HowHistory)
		}
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
		t.Fatalf("restore point %+v, want generation 2", rp)
	}

	forgetSHA256(t, w.site.hist)
	old := w.status(t, true, "")
	w.checkStripes(t, old)
	if n := w.srvW.RequestsTo("/web/") + w.srvC.RequestsTo("/crawl-data/"); n != len(w.wayback)+len(w.cc) {
		t.Fatalf("history without SHA-256: %d captures fetched, want every one (%d)", n, len(w.wayback)+len(w.cc))
	}
	if rp := old.RestorePoint; rp == nil || rp.Generation != w.g2.id {
		t.Fatalf("history without SHA-256: restore point %+v, want generation 2", rp)
	}
}

// TestSpotCheckVerifiesSHA256Digests: the spot check hashes a fetched
// capture with the algorithm of its listed digest: an honest SHA-256
// listing passes (the source stays trusted), and pages that carry no
// block listed under the real pages' SHA-256 are caught.
func TestSpotCheckVerifiesSHA256Digests(t *testing.T) {
	t.Run("honest", func(t *testing.T) {
		w := newStatusWorld(t, func(w *statusWorld) {
			w.wayback = listSHA256(w.g2.plant(statusT2.Add(day), "", w.g2.names()...))
		})
		rep := runStatus(t, w.statusOpts(true, ""))
		if rep.Sources[0].Distrusted || rep.Sources[0].SpotChecked == 0 {
			t.Fatalf("honest SHA-256 listing: distrusted %v after %d spot checks; problems %q",
				rep.Sources[0].Distrusted, rep.Sources[0].SpotChecked, rep.Problems)
		}
		if n := w.srvW.RequestsTo("/web/"); n != rep.Sources[0].SpotChecked {
			t.Fatalf("%d captures fetched, want only the %d spot-checked", n, rep.Sources[0].SpotChecked)
		}
		if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
			t.Fatalf("restore point %+v, want generation 2", rp)
		}
	})
	t.Run("lying", func(t *testing.T) {
		w := newStatusWorld(t, func(w *statusWorld) {
			w.wayback = listSHA256(w.g1.plant(statusT1.Add(day), "", w.g1.names()...))
			for i, c := range w.g2.plant(statusT2.Add(day), "", w.g2.names()...) {
				real := c.Body
				// As long as the real page, so that the listed length
				// does not give the lie away: the spot check must.
				c.Body = []byte("<html>nothing here " + c.URL + "</html>")
				c.Body = append(c.Body, strings.Repeat(" ", len(real)-len(c.Body))...)
				c.Digest = sitetest.SHA256Spelling(i, real)
				w.wayback = append(w.wayback, c)
			}
		})
		rep := runStatus(t, w.statusOpts(true, ""))
		if !rep.Sources[0].Distrusted || !strings.Contains(strings.Join(rep.Problems, "\n"), "spot check") {
			t.Fatalf("the failed spot check is not reported: distrusted %v, problems %q", rep.Sources[0].Distrusted, rep.Problems)
		}
		if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || rp.Newest {
			t.Fatalf("restore point %+v, want generation 1", rp)
		}
	})
}

// TestStatusKeepsDigestAlgorithmsApart: the cache and the fetches know a
// capture by its parsed digest: one page listed in two spellings of its
// SHA-256 is fetched once, and pages listed by SHA-1 and SHA-256 are each
// fetched (none taken for another).
func TestStatusKeepsDigestAlgorithmsApart(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		for i := range w.wayback {
			if i%2 == 0 {
				w.wayback[i].Digest = sitetest.SHA256Spelling(i, w.wayback[i].Body)
			}
		}
		again := w.wayback[0]
		again.Time, again.Digest = again.Time.Add(day), sitetest.SHA256Spelling(1, again.Body)
		w.wayback = append(w.wayback, again)
	})
	rep := w.status(t, false, "")
	if n, want := w.srvW.RequestsTo("/web/"), len(w.wayback)-1; n != want {
		t.Fatalf("%d captures fetched, want %d (one per page)", n, want)
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
		t.Fatalf("restore point %+v, want generation 2", rp)
	}
}
