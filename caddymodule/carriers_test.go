package caddymodule

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// learnFixture builds a generation, serves a site through the handler
// (root, then the pages it links to) and builds again: the second build
// plans for the carrier pages learned and checks them.
type learnFixture struct {
	f    *buildFixture
	h    *Handler
	logs *observer.ObservedLogs
	now  time.Time
}

// newLearnFixture is a self-building handler of an app of appBytes
// random bytes (0: the build fixture's) in blocks of blockBytes (0: the
// fixture's 2 KiB).
func newLearnFixture(t *testing.T, appBytes, blockBytes int) *learnFixture {
	t.Helper()
	f := newBuildFixture(t)
	if blockBytes > 0 {
		f.build.MaxBlockBytes = blockBytes
	}
	if appBytes > 0 {
		noise := make([]byte, appBytes) // random: compression keeps its size
		rand.Read(noise)
		writeFile(t, filepath.Join(f.src, "app/index.php"), noise)
	}
	l := &learnFixture{f: f, now: genTime}
	core, logs := observer.New(zap.InfoLevel)
	b := f.build
	l.h = &Handler{Build: &b, Name: "site", storage: &certmagic.FileStorage{Path: f.storage}, now: func() time.Time { return l.now },
		ReloadInterval: caddy.Duration(time.Nanosecond), logger: zap.New(core)}
	if err := l.h.setup(); err != nil {
		t.Fatal(err)
	}
	if err := l.h.Validate(); err != nil {
		t.Fatal(err)
	}
	l.logs = logs
	return l
}

// serveSite builds, serves root and the pages (each with body) and
// builds again; it returns the second build's error-level messages.
func (l *learnFixture) serveSite(t *testing.T, root string, pages []string, body string) []observer.LoggedEntry {
	t.Helper()
	mustBuild(t, l.h, "new")
	if l.logs.FilterMessageSnippet("no carrier page of the site learned yet").Len() != 1 {
		t.Fatal("the first build did not say it planned for the stand-in")
	}
	l.now = l.now.Add(time.Minute)
	serve(t, l.h, &page{body: root}, "GET", "/", nil)
	for _, p := range pages {
		serve(t, l.h, &page{body: body}, "GET", p, nil)
	}
	l.now = l.now.Add(2 * time.Hour)
	before := l.logs.Len()
	if _, err := l.h.builder.build(context.Background()); err != nil {
		t.Fatal(err)
	}
	var errs []observer.LoggedEntry
	for _, e := range l.logs.All()[before:] {
		if e.Level == zapcore.ErrorLevel {
			errs = append(errs, e)
		}
		if e.Message == "built lazarus generation" {
			t.Logf("%d linked pages served; the code is planned for %v pages", 1+len(pages), e.ContextMap()["code_planned_for_pages"])
		}
	}
	return errs
}

// gauge reads the carrier_pages gauge of kind.
func (l *learnFixture) gauge(t *testing.T, kind string) float64 {
	t.Helper()
	return metricValue(t, l.h.metrics.carrierPages.WithLabelValues(l.h.Name, kind))
}

// checkRemedies checks that errs is one error naming the remedies, first
// the one for the site's problem.
func checkRemedies(t *testing.T, errs []observer.LoggedEntry, first string) {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("%d errors logged, want 1: %v", len(errs), errs)
	}
	remedies, _ := errs[0].ContextMap()["remedies"].([]any)
	if len(remedies) < 4 {
		t.Fatalf("%q: remedies %v", errs[0].Message, remedies)
	}
	if !strings.Contains(fmt.Sprint(remedies[0]), first) {
		t.Fatalf("first remedy %q, want one about %q", remedies[0], first)
	}
	all := fmt.Sprint(remedies...)
	for _, r := range []string{"noindex", "permalinks", "reinstalled", "sitemap"} {
		if !strings.Contains(all, r) {
			t.Errorf("the remedies do not name %q: %v", r, remedies)
		}
	}
}

func linkedRoot(links []string) string {
	var b strings.Builder
	b.WriteString("<html><body>")
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
	}
	return b.String() + "</body></html>"
}

// TestCarriersQueryLinksOnly: a root whose links all have query strings
// (plain permalinks, /?p=N) leaves the root the only carrier, too few for
// a backup larger than a page holds: an error that names pretty
// permalinks first.
func TestCarriersQueryLinksOnly(t *testing.T) {
	l := newLearnFixture(t, 400_000, 0)
	var links []string
	for i := range 30 {
		links = append(links, fmt.Sprintf("/?p=%d", i))
	}
	errs := l.serveSite(t, linkedRoot(links), nil, html)
	checkRemedies(t, errs, "permalinks")
	if got := l.gauge(t, "learned"); got != 1 {
		t.Fatalf("learned %v carrier pages, want the root alone", got)
	}
}

// TestCarriersNoindexEverywhere: every page says noindex ("discourage
// search engines"): no carrier at all, an error that names noindex first.
func TestCarriersNoindexEverywhere(t *testing.T) {
	l := newLearnFixture(t, 0, 0)
	noindex := `<html><head><meta name="robots" content="noindex,follow"></head><body>%s</body></html>`
	var pages []string
	for i := range 20 {
		pages = append(pages, fmt.Sprintf("/post%d/", i))
	}
	root := strings.Replace(linkedRoot(pages), "<html><body>", `<html><head><meta name="robots" content="noindex,follow"></head><body>`, 1)
	errs := l.serveSite(t, root, pages, fmt.Sprintf(noindex, "a post"))
	checkRemedies(t, errs, "noindex")
	if got, ex := l.gauge(t, "learned"), l.gauge(t, "excluded"); got != 0 || ex != 21 {
		t.Fatalf("learned %v carrier pages and %v excluded, want 0 and 21", got, ex)
	}
}

// TestCarriersFewerThanNeeded: a site of 5 linked pages and a backup
// larger than they hold (2 MB, 256 KiB a page): an error that names
// excluding what can be reinstalled first; the gauges say both counts.
func TestCarriersFewerThanNeeded(t *testing.T) {
	l := newLearnFixture(t, 2_000_000, 48<<10)
	pages := []string{"/a", "/b", "/c", "/d"}
	errs := l.serveSite(t, linkedRoot(pages), pages, html)
	checkRemedies(t, errs, "reinstalled")
	if got, need := l.gauge(t, "learned"), l.gauge(t, "needed"); got != 5 || need <= 5 {
		t.Fatalf("learned %v carrier pages, %v needed; want 5 and more", got, need)
	}
}

// TestCarriersLearned: a site with enough linked pages: no error, and
// the code is planned for the pages learned, not the stand-in.
func TestCarriersLearned(t *testing.T) {
	l := newLearnFixture(t, 0, 0)
	var pages []string
	for i := range 40 {
		pages = append(pages, fmt.Sprintf("/post%d/", i))
	}
	if errs := l.serveSite(t, linkedRoot(pages), pages, html); len(errs) != 0 {
		t.Fatalf("errors logged: %v", errs)
	}
	if got, need := l.gauge(t, "learned"), l.gauge(t, "needed"); got != 41 || need > got {
		t.Fatalf("learned %v carrier pages, %v needed; want 41, enough", got, need)
	}
	if l.logs.FilterMessageSnippet("no carrier page of the site learned yet").Len() != 1 {
		t.Fatal("the second build planned for the stand-in again")
	}
}
