package status_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// Regression tests for a new user's trial of lazarus status (the
// documentation only, now docs/ASSURANCE.md, a real static site, wget
// WARC and mirror as archives), one per item.

// TestStatusU1WrongKey: another key's audit of archived pages says the
// key is the cause (Report.Cause), in one place, instead of
// blaming the archives; the history's manifests are named once
// (item 10), and the note on sweeps is left out without an outlook
// (item 15).
func TestStatusU1WrongKey(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	_, other, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, hist := range []bool{true, false} {
		o := w.statusOpts(hist, "")
		o.ServerKey = other.Marshal()
		rep := runStatus(t, o)
		c := rep.Cause
		if rep.Outcome() != status.NothingRecoverable || c == nil || c.Kind != status.CauseWrongKey ||
			!strings.Contains(c.Message, "none signed by this key: another site's data, or the wrong key") {
			t.Fatalf("history %v: outcome %v, cause %+v; want the wrong key named", hist, rep.Outcome(), c)
		}
		for _, p := range rep.Problems {
			if i := strings.Index(p, "manifest of generation "); i >= 0 && strings.Count(p, "manifest of generation ") > 1 {
				t.Errorf("doubled prefix: %q", p)
			}
		}
		for _, n := range rep.Notes {
			if strings.Contains(n, "sweeps") {
				t.Errorf("history %v: note on sweeps without an outlook: %q", hist, n)
			}
		}
	}
	// The right key: no cause.
	if rep := w.status(t, true, ""); rep.Cause != nil {
		t.Fatalf("right key: cause %+v", rep.Cause)
	}
}

// TestStatusU1SourcesUnreadable: a mistyped local source is the cause,
// named with its error; with one readable source left, the archives are
// judged and there is no cause.
func TestStatusU1SourcesUnreadable(t *testing.T) {
	site := newStatusSite(t, 2)
	site.inject(t, statusT1)
	missing := filepath.Join(t.TempDir(), "nonexist.warc")
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []source.Source{source.WARCSource{Path: missing}}}
	rep := runStatus(t, o)
	c := rep.Cause
	if c == nil || c.Kind != status.CauseSourcesFailed || !strings.HasPrefix(c.Message, "source warc="+missing+": cannot be read: ") ||
		!strings.Contains(c.Message, "no such file") {
		t.Fatalf("cause %+v; want the source and its error", c)
	}
	o.Sources = append(o.Sources, source.DirSource{Dir: missing + ".d"})
	rep = runStatus(t, o)
	if c := rep.Cause; c == nil || !strings.HasPrefix(c.Message, "every source failed: source warc=") || !strings.Contains(c.Message, "; source dir=") {
		t.Fatalf("two unreadable sources: cause %+v", c)
	}
	o.Sources[1] = source.DirSource{Dir: filepath.Join(site.dir, "site")}
	if rep := runStatus(t, o); rep.Cause != nil {
		t.Fatalf("one source read: cause %+v", rep.Cause)
	}
}

// TestStatusU3DenseTimes: the model is asked for ModelTimes, and
// the JSON carries them as float seconds (item 12), round trip exact.
func TestStatusU3DenseTimes(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	rep := w.status(t, true, "")
	want := status.ModelTimes()
	for _, v := range rep.Assessment.Views {
		if len(v.At) != len(want) {
			t.Fatalf("%s view: %d times, want %d", v.Name, len(v.At), len(want))
		}
		for i, p := range v.At {
			if p.After != want[i] {
				t.Fatalf("%s view: time %d is %v, want %v", v.Name, i, p.After, want[i])
			}
		}
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`_ns"`)) || !bytes.Contains(raw, []byte(`"after_seconds":604800`)) ||
		!bytes.Contains(raw, []byte(`"age_seconds":`)) || !bytes.Contains(raw, []byte(`"reach_in_seconds":`)) {
		t.Fatalf("JSON durations are not float seconds: %s", raw[:min(len(raw), 400)])
	}
	var back status.Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.RestorePoint.Age != rep.RestorePoint.Age || back.Assessment.Views[1].At[7].After != 7*day ||
		back.Assessment.Views[1].ReachIn != rep.Assessment.Views[1].ReachIn {
		t.Fatalf("round trip: %+v, want %+v", back.RestorePoint, rep.RestorePoint)
	}
}

// mirror writes pages (URL suffix → bytes) as a wget mirror does, under
// DIR/example.org/, with modification time at, and returns DIR.
func mirror(t *testing.T, pages map[string][]byte, at time.Time) string {
	t.Helper()
	dir := t.TempDir()
	for u, body := range pages {
		name := strings.TrimPrefix(u, "https://example.org/")
		if name == "" || strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		p := filepath.Join(dir, "example.org", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestStatusU4AsOfLocal: a mirror's files dated before --as-of, holding
// a generation made after it, do not make that generation count.
func TestStatusU4AsOfLocal(t *testing.T) {
	site := newStatusSite(t, 4)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	dir := mirror(t, g2.pages, statusT1.Add(day))
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.server.Marshal(), Now: statusT1.Add(10 * day), NoLive: true,
		Sources: []source.Source{source.DirSource{Dir: dir}}, SpotChecks: status.NoSpotChecks}
	rep := runStatus(t, o)
	for _, g := range rep.Generations {
		if g.ID == g2.id {
			t.Fatalf("generation %s, made %v, listed as of %v", g2.id, g2.time, o.Now)
		}
	}
	for _, c := range rep.Captures {
		if c.Manifest == g2.id || slices.Contains(c.Generations, g2.id) {
			t.Fatalf("capture %+v credited with what was made after the audit's time", c)
		}
	}
	if rep.Newest == g2.id {
		t.Fatalf("newest %s, made after the audit's time", g2.id)
	}
}

// TestStatusU5LocalDigests: a mirror directory and a WARC file are read
// once, their bytes' digest looked up in the history: every capture is
// known from it, none scanned; the note on captures read says why when
// some are (a page version the history does not record).
func TestStatusU5LocalDigests(t *testing.T) {
	site := newStatusSite(t, 4)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	dir := mirror(t, g2.pages, statusT2.Add(day))
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []source.Source{source.DirSource{Dir: dir}}, History: []history.Store{site.hist}, SpotChecks: status.NoSpotChecks}
	rep := runStatus(t, o)
	if s := rep.Sources[0]; s.Captures != len(g2.pages) || s.Known != len(g2.pages) || s.Fetched != 0 {
		t.Fatalf("mirror with history: %+v; want every capture known", s)
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != g2.id {
		t.Fatalf("restore point %+v", rp)
	}
	// A page changed by the mirror: read, and the note says why.
	p := filepath.Join(dir, "example.org", "p0.html")
	body, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(body, "\n<!-- wget -->"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, statusT2.Add(day), statusT2.Add(day)); err != nil {
		t.Fatal(err)
	}
	rep = runStatus(t, o)
	notes := strings.Join(rep.Notes, "\n")
	if rep.Sources[0].Fetched != 1 || !strings.Contains(notes, "1 whose digest the history does not record") || strings.Contains(notes, "their digests are not in it") {
		t.Fatalf("changed page: %+v, notes %q", rep.Sources[0], notes)
	}
}

// withoutManifest returns page with its manifest comments removed.
func withoutManifest(page []byte) []byte {
	var out []byte
	last := 0
	for f := range htmlblock.All(page) {
		if f.Kind == htmlblock.KindManifest && f.Err == nil {
			out = append(out, page[last:f.Offset]...)
			last = f.End
		}
	}
	return append(out, page[last:]...)
}

// TestStatusU6ManifestMissing: every block of generation 2 archived but
// its manifest in no capture: the segments are rebuildable, and the
// report says what recover does (item 6), not "NOT recoverable".
func TestStatusU6ManifestMissing(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		for i := range w.wayback {
			w.wayback[i].Body = withoutManifest(w.wayback[i].Body)
		}
	})
	rep := w.status(t, true, "")
	g := rep.Generations[0]
	if g.ID != w.g2.id || g.Recoverable || !g.SegmentsRebuildable || g.ManifestArchived {
		t.Fatalf("generation %+v; want segments rebuildable, manifest not archived", g)
	}
	if len(g.Short) != 1 || !strings.HasPrefix(g.Short[0], "segments rebuildable, but its manifest is in no archived capture") {
		t.Fatalf("short %q", g.Short)
	}
}

// TestStatusU7ArchiveSourceKinds: the live site is refused, and an
// unknown kind's error lists only the archives.
func TestStatusU7ArchiveSourceKinds(t *testing.T) {
	if _, err := source.ParseArchive("live", nil); err == nil || !strings.Contains(err.Error(), "not an archive") {
		t.Fatalf("live: %v", err)
	}
	_, err := source.ParseArchive("ftp=x", nil)
	if err == nil || !strings.Contains(err.Error(), source.ArchiveKinds) || strings.Contains(err.Error(), "live") {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := source.Parse("ftp=x", nil); err == nil || !strings.Contains(err.Error(), "live") {
		t.Fatalf("recover's unknown kind: %v", err)
	}
	if src, err := source.ParseArchive("warc=x.warc", nil); err != nil || src.Name() != "warc=x.warc" {
		t.Fatalf("warc: %v, %v", src, err)
	}
}

// TestStatusU8Depth: "/" and "/index.html" are one page; depths come
// from a breadth-first walk of the archived pages' links, and a page the
// walk does not reach has an unknown depth, not 1.
func TestStatusU8Depth(t *testing.T) {
	site := newStatusSite(t, 1)
	site.inject(t, statusT1)
	page := func(links ...string) []byte {
		s := "<html><body>"
		for _, l := range links {
			s += `<a href="` + l + `">x</a>`
		}
		return []byte(s + "</body></html>")
	}
	root := page("/blog/", "/about.html")
	caps := []archivetest.Capture{
		{URL: "https://example.org/", Time: statusT1.Add(day), Body: root},
		{URL: "https://example.org/index.html", Time: statusT1.Add(2 * day), Body: root},
		{URL: "https://example.org/blog/", Time: statusT1.Add(day), Body: page("/blog/post1.html")},
		{URL: "https://example.org/blog/post1.html", Time: statusT1.Add(day), Body: page()},
		{URL: "https://example.org/about.html", Time: statusT1.Add(day), Body: page()},
		{URL: "https://example.org/orphan.html", Time: statusT1.Add(day), Body: page()},
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Label: "wayback", Client: client}}}
	rep := runStatus(t, o)
	checkDepths(t, rep, map[string]int{"/": 0, "/blog/": 1, "/about.html": 1, "/blog/post1.html": 2, "/orphan.html": status.DepthUnknown},
		`("/index.html" is "/")`)
}

// TestStatusU13ThinEvidence: five days of captures weigh less than the
// prior's 30 days: the report carries the evidence and says it is thin;
// with two months of captures it does not.
func TestStatusU13ThinEvidence(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g1.plant(statusT1.Add(day), "", w.g1.names()...)
	})
	for _, tc := range []struct {
		now  time.Time
		thin bool
	}{{statusT1.Add(5 * day), true}, {statusT1.Add(60 * day), false}} {
		o := w.statusOpts(true, "")
		o.Now = tc.now
		rep := runStatus(t, o)
		e := rep.Assessment.Evidence
		if e == nil || e.PriorDominated != tc.thin || e.MedianExposure <= 0 {
			t.Fatalf("as of %v: evidence %+v; want prior-dominated %v", tc.now, e, tc.thin)
		}
		if got := strings.Contains(strings.Join(rep.Notes, "\n"), "Too little capture history"); got != tc.thin {
			t.Fatalf("as of %v: thin-evidence note %v, want %v: %q", tc.now, got, tc.thin, rep.Notes)
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(`"median_exposure_seconds":`)) || bytes.Contains(raw, []byte(`"prior_dominated":true`)) != tc.thin {
			t.Fatalf("as of %v: JSON evidence wrong", tc.now)
		}
	}
}
