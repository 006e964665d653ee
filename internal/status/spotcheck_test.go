package status_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestSpotCheckCatchesLyingDigest: every generation 2 page the Wayback
// lists carries no block, but is listed under the digest of the real
// page (or the history forges records for its digest). With the default
// spot check, status fetches one, sees the lie, distrusts the source's
// digests and reports generation 1 as the restore point, as recover
// would find it.
func TestSpotCheckCatchesLyingDigest(t *testing.T) {
	for _, forge := range []string{"listed digest", "forged record"} {
		t.Run(forge, func(t *testing.T) {
			w := newStatusWorld(t, func(w *statusWorld) {
				w.wayback = w.g1.plant(statusT1.Add(day), "", w.g1.names()...)
				for _, c := range w.g2.plant(statusT2.Add(day), "", w.g2.names()...) {
					real := c.Body
					// As long as the real page, so that the listed length
					// does not give the lie away: the spot check must.
					c.Body = []byte("<html>nothing here " + c.URL + "</html>")
					c.Body = append(c.Body, strings.Repeat(" ", len(real)-len(c.Body))...)
					if forge == "listed digest" {
						c.Digest = archivetest.Digest(real)
					} else {
						rec := w.site.record(t, strings.TrimPrefix(c.URL, "https://example.org"), statusT2, real)
						sums := history.SumsOf(c.Body)
						rec.Digest, rec.SHA256 = sums.SHA1, sums.SHA256
						if _, err := history.AddBatch(context.Background(), w.site.hist, w.g2.id, rec); err != nil {
							t.Fatal(err)
						}
					}
					w.wayback = append(w.wayback, c)
				}
			})
			rep := runStatus(t, w.statusOpts(true, ""))
			if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || rp.Newest || rep.Outcome() != status.OlderRecoverable {
				t.Fatalf("restore point %+v, want generation 1 (exit 3)", rp)
			}
			if !strings.Contains(strings.Join(rep.Problems, "\n"), "spot check") || !rep.Sources[0].Distrusted {
				t.Fatalf("problems do not report the failed spot check: %q", rep.Problems)
			}
			// Trusting the listing (--spot-checks 0) takes the archive's
			// word: the minimum of requests, and the report says so.
			o := w.statusOpts(true, "")
			o.SpotChecks = status.NoSpotChecks
			if rep := runStatus(t, o); !strings.Contains(strings.Join(rep.Notes, " "), "on the archive's word") {
				t.Fatalf("notes do not say the history-known captures are counted on the archive's word: %q", rep.Notes)
			}
		})
	}
}

// TestTruncatedCopyNotCreditedByHistory: a copy cut to a third, listed
// under the full page's digest with its real (short) length, is not
// credited by the history: it is fetched.
func TestTruncatedCopyNotCreditedByHistory(t *testing.T) {
	var cutURL string
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		c := &w.wayback[len(w.wayback)-1]
		c.Digest = archivetest.Digest(c.Body)
		c.Body = c.Body[:len(c.Body)/3]
		cutURL = c.URL
	})
	rep := runStatus(t, w.statusOpts(true, ""))
	for _, c := range rep.Captures {
		if c.URL == cutURL && c.How == status.HowHistory {
			t.Fatalf("truncated copy %s credited by the history: %+v", cutURL, c)
		}
	}
}

// downSource lists captures with their true digests, but none of them
// can be fetched: every replay answers HTTP 503.
type downSource struct {
	caps []archivetest.Capture
}

func (downSource) Name() string { return "down" }

func (s downSource) List(_ context.Context, _ *url.URL, fn func(source.Capture) error) error {
	for _, c := range s.caps {
		if err := fn(source.Capture{Source: "down", URL: c.URL, Time: c.Time, Digest: archivetest.Digest(c.Body), Locator: c.URL}); err != nil {
			return err
		}
	}
	return nil
}

func (downSource) Fetch(_ context.Context, c source.Capture) (io.ReadCloser, error) {
	return nil, errors.New("GET " + c.Locator + ": HTTP 503")
}

// TestSpotCheckOfUnfetchableCopiesWithdrawsCredit: an archive lists
// every generation 2 page under its true digest, but none of its copies
// can be fetched. The spot check confirms nothing: the history's credit
// is withdrawn, the report says the archive's copies could not be
// fetched, and status exits 1, as recover fails.
func TestSpotCheckOfUnfetchableCopiesWithdrawsCredit(t *testing.T) {
	site := newStatusSite(t, 8)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	src := downSource{caps: g2.plant(statusT2.Add(day), "", g2.names()...)}
	rep := runStatus(t, status.Options{SiteURL: "https://example.org/", Sources: []source.Source{src},
		ServerKey: site.Server.Marshal(), History: []history.Store{site.hist}, Now: statusNow, NoLive: true})
	if out := rep.Outcome(); out != status.NothingRecoverable || rep.RestorePoint != nil {
		t.Fatalf("outcome %d, restore point %+v; want nothing recoverable (no copy can be fetched)", out, rep.RestorePoint)
	}
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "copies could not be fetched") {
		t.Fatalf("problems do not say the archive's copies could not be fetched: %q", rep.Problems)
	}
	for _, c := range rep.Captures {
		if c.How == status.HowHistory || c.Blocks > 0 {
			t.Fatalf("capture %s still credited: %+v", c.URL, c)
		}
	}
	rrep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: site.Owner.Marshal(), Out: t.TempDir(),
		SiteURL: "https://example.org/", Sources: []source.Source{src}})
	if err == nil && rrep.Generation != "" {
		t.Fatalf("recover restored generation %s from an archive none of whose copies can be fetched", rrep.Generation)
	}
}

// TestOversizedWARCRecordDigestNotCredited: a local WARC file whose
// records are junk at least MaxCapture bytes long, each with a forged
// WARC-Payload-Digest naming a generation 2 page, is not credited by the
// history: its digest was not computed from its bytes. Nothing is
// recoverable (exit 1).
func TestOversizedWARCRecordDigestNotCredited(t *testing.T) {
	site := newStatusSite(t, 8)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	const maxCapture = 64 << 10
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "forged.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	for _, n := range g2.names() {
		u := "https://example.org/" + n
		body := "<html>" + strings.Repeat("junk ", maxCapture/5) + "</html>"
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		h := warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Target-URI", Value: u},
			{Name: "WARC-Date", Value: warc.FormatDate(statusT2.Add(day))}, {Name: "Content-Type", Value: "application/http; msgtype=response"},
			{Name: "WARC-Payload-Digest", Value: warc.Digest(g2.pages[u])}}
		if err := w.WriteRecord(h, []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	// A local file's digests are computed from its bytes, so no spot
	// check is needed to trust them: the verdict must not rest on one.
	for _, spot := range []int{status.NoSpotChecks, 0} {
		rep := runStatus(t, status.Options{SiteURL: "https://example.org/", Sources: []source.Source{source.WARCSource{Path: dir}},
			ServerKey: site.Server.Marshal(), History: []history.Store{site.hist}, Now: statusNow, NoLive: true, MaxCapture: maxCapture, SpotChecks: spot})
		if out := rep.Outcome(); out != status.NothingRecoverable {
			t.Fatalf("spot checks %d: outcome %d, restore point %+v; want nothing recoverable (the records hold no block)", spot, out, rep.RestorePoint)
		}
		for _, c := range rep.Captures {
			if c.How == status.HowHistory || c.How == status.HowChecked || c.Blocks > 0 {
				t.Fatalf("spot checks %d: forged record %s credited: %+v", spot, c.URL, c)
			}
		}
	}
}
