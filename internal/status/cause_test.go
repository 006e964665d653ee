package status_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestWrongKeyIsTheCause: another key's audit of archived pages says the
// key is the cause (Report.Cause), in one place, instead of blaming the
// archives; the history's manifests are named once, and the note on
// sweeps is left out without an outlook.
func TestWrongKeyIsTheCause(t *testing.T) {
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

// TestUnreadableSourcesAreTheCause: a mistyped local source is the
// cause, named with its error; with one readable source left, the
// archives are judged and there is no cause.
func TestUnreadableSourcesAreTheCause(t *testing.T) {
	site := newStatusSite(t, 2)
	site.inject(t, statusT1)
	missing := filepath.Join(t.TempDir(), "nonexist.warc")
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true,
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
	o.Sources[1] = source.DirSource{Dir: site.Pages()}
	if rep := runStatus(t, o); rep.Cause != nil {
		t.Fatalf("one source read: cause %+v", rep.Cause)
	}
}
