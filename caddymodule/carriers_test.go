package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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
	if !strings.Contains(errs[0].Message, "served so far") {
		t.Errorf("%q: the message does not say the pages counted are those served so far", errs[0].Message)
	}
	for _, r := range []string{"noindex", "permalinks", "reinstalled", "sitemap", "lazarus verify --url"} {
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
	if r := fmt.Sprint(errs[0].ContextMap()["remedies"]); strings.Contains(r, "page_budget") {
		t.Errorf("with no carrier page, the remedies name page_budget: %v", r)
	}
	if got, ex := l.gauge(t, "learned"), l.gauge(t, "excluded"); got != 0 || ex != 21 {
		t.Fatalf("learned %v carrier pages and %v excluded, want 0 and 21", got, ex)
	}
}

// TestCarriersFewerThanNeeded: a site of 5 linked pages and a backup
// larger than they hold (2 MB, 256 KiB a page): an error that names
// excluding what can be reinstalled first, and a larger page_budget
// among the remedies; the gauges say both counts.
func TestCarriersFewerThanNeeded(t *testing.T) {
	l := newLearnFixture(t, 2_000_000, 48<<10)
	pages := []string{"/a", "/b", "/c", "/d"}
	errs := l.serveSite(t, linkedRoot(pages), pages, html)
	checkRemedies(t, errs, "reinstalled")
	if r := fmt.Sprint(errs[0].ContextMap()["remedies"]); !strings.Contains(r, "raise page_budget (now 256 KiB") {
		t.Errorf("the remedies do not name page_budget: %v", r)
	}
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

// storedCarriers reads the carrier pages learned in h's storage.
func storedCarriers(t *testing.T, h *Handler) learnedCarriers {
	t.Helper()
	v, err := h.storage.Load(context.Background(), h.builder.prefix+"carriers")
	if err != nil {
		t.Fatal(err)
	}
	var c learnedCarriers
	if err := json.Unmarshal(v, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCarriersLatestSightingWins: a page one instance saw excluded
// (noindex) and another instance later saw without noindex stays a
// carrier when the first builds again without having seen it since.
// Before, every instance merged all it had ever seen at every build, so
// an instance's stale sighting turned the page back into an excluded one
// at each of its builds.
func TestCarriersLatestSightingWins(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	a, b := f.handler(t, &now), f.handler(t, &now)
	build := func(h *Handler) {
		now = now.Add(2 * time.Hour)
		if _, err := h.builder.build(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	build(a)
	root := linkedRoot([]string{"/x"})
	serve(t, a, &page{body: root}, "GET", "/", nil)
	serve(t, a, &page{body: `<html><head><meta name="robots" content="noindex"></head><body>x</body></html>`}, "GET", "/x", nil)
	build(a)
	serve(t, b, &page{body: root}, "GET", "/", nil)
	serve(t, b, &page{body: html}, "GET", "/x", nil) // noindex removed
	build(b)
	build(a)
	x := keyHash("/x")
	if c := storedCarriers(t, a); !slices.Contains(c.Pages, hex.EncodeToString(x[:])) {
		t.Fatalf("/x, last seen without noindex, is not a carrier page: %+v", c)
	}
}

// TestCarriersKeptWhenUnreadable: a build that cannot read the carrier
// pages learned (storage failing for a moment) leaves them as they are,
// and merges what its instance saw at the next build. Before, it stored
// what its own instance had seen in their place: the pages the other
// instances had learned were lost, and the next generations planned for
// fewer pages.
func TestCarriersKeptWhenUnreadable(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	a := f.handler(t, &now)
	build := func(h *Handler) {
		now = now.Add(2 * time.Hour)
		if _, err := h.builder.build(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	build(a)
	pages := []string{"/a", "/b", "/c"}
	serve(t, a, &page{body: linkedRoot(pages)}, "GET", "/", nil)
	for _, p := range pages {
		serve(t, a, &page{body: html}, "GET", p, nil)
	}
	build(a)
	flaky := &flakyLoads{Storage: &certmagic.FileStorage{Path: f.storage}, part: "/carriers"}
	bb := f.build
	b := &Handler{Build: &bb, Name: "site", Fill: true, storage: flaky, now: func() time.Time { return now }}
	if err := b.setup(); err != nil {
		t.Fatal(err)
	}
	serve(t, b, &page{body: linkedRoot(append(pages, "/d"))}, "GET", "/", nil)
	serve(t, b, &page{body: html}, "GET", "/d", nil)
	flaky.failures.Store(1)
	build(b)
	if c := storedCarriers(t, a); len(c.Pages) != 4 {
		t.Fatalf("%d carrier pages stored after a build that could not read them, want the 4 learned", len(c.Pages))
	}
	build(b)
	if c := storedCarriers(t, a); len(c.Pages) != 5 {
		t.Fatalf("%d carrier pages stored, want 5: the page the instance saw is merged at its next build", len(c.Pages))
	}
}

// TestCarriersForgetPagesNoLongerServed: a site whose 20 posts moved to
// new URLs has 21 carrier pages, not 41, once a learning window has
// passed without the old URLs being served (a page counts for one to two
// windows after it was last seen). Before, every page ever seen counted
// for ever: moved, deleted or one-off pages inflated the count, and the
// code was planned for pages no archive keeps (more data blocks a stripe
// than the site has pages) without the error that says so.
func TestCarriersForgetPagesNoLongerServed(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	h := f.handler(t, &now)
	site := func(prefix string) {
		var pages []string
		for i := range 20 {
			pages = append(pages, fmt.Sprintf("/%s/post%d/", prefix, i))
		}
		serve(t, h, &page{body: linkedRoot(pages)}, "GET", "/", nil)
		for _, p := range pages {
			serve(t, h, &page{body: html}, "GET", p, nil)
		}
	}
	build := func() carrierCount {
		now = now.Add(2 * time.Hour)
		return h.builder.learn(context.Background())
	}
	mustBuild(t, h, "new")
	site("2024")
	if got := build(); got.pages != 21 {
		t.Fatalf("learned %d carrier pages, want 21", got.pages)
	}
	for day := 0; day <= 2*int(learnWindow/(24*time.Hour)); day++ {
		now = now.Add(24 * time.Hour)
		site("posts") // the posts moved
		build()
	}
	if got := build(); got.pages != 21 {
		t.Fatalf("learned %d carrier pages two windows after the posts moved, want 21", got.pages)
	}
}
