package statushtml

import (
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestNotTheArchives: when the report's Cause says nothing is
// recoverable because of the key or the sources, the headline says so
// instead of blaming the archives; without a Cause, or when something is
// recoverable, it does not.
func TestNotTheArchives(t *testing.T) {
	wrongKey := func() *status.Report {
		return &status.Report{Now: sampleNow,
			Sources:  []status.SourceReport{{Name: "wayback", Captures: 9, Fetched: 9}},
			Captures: []status.Capture{{Source: "wayback", URL: "https://example.org/", Rejected: 4}},
			Cause: &status.Cause{Kind: status.CauseWrongKey,
				Message: "found 4 Lazarus blocks or manifests, but none signed by this key: another site's data, or the wrong key"}}
	}
	unlisted := func() *status.Report {
		return &status.Report{Now: sampleNow, Sources: []status.SourceReport{
			{Name: "wayback", Error: "listing: connection refused"}, {Name: "commoncrawl", Error: "listing: 503"}},
			Cause: &status.Cause{Kind: status.CauseSourcesFailed,
				Message: "every source failed: source wayback: cannot be read: listing: connection refused; source commoncrawl: cannot be read: listing: 503"}}
	}
	for _, tc := range []struct {
		name string
		r    *status.Report
		want string // in the headline; "" for the usual one
	}{
		{"wrong key", wrongKey(), "none signed by this key"},
		{"wrong key, headline", wrongKey(), "No generation is recoverable with this key."},
		{"every source failed to list", unlisted(), "source commoncrawl: cannot be read: listing: 503"},
		{"every source failed, headline", unlisted(), "Nothing could be read from the archives."},
		{"other kind", func() *status.Report { r := unlisted(); r.Cause.Kind = "future"; return r }(), "the archives are not to blame"},
		{"no cause", func() *status.Report { r := wrongKey(); r.Cause = nil; return r }(), ""},
		{"recoverable", func() *status.Report {
			r := wrongKey()
			r.RestorePoint = &status.RestorePoint{Generation: "g", Newest: true}
			return r
		}(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, doc := render(t, tc.r)
			head := text(byID(t, doc, "verdict"))
			switch {
			case tc.want != "" && !strings.Contains(head, tc.want):
				t.Errorf("headline %q, want it to say %q", head, tc.want)
			case tc.want == "" && (strings.Contains(head, "this key") || strings.Contains(head, "cannot be read") || strings.Contains(head, "could be read")):
				t.Errorf("headline %q blames the key or the sources", head)
			}
		})
	}
}

// TestOutlookUnavailable: a generation whose carriers are unknown (no
// serve history) gets "Outlook unavailable", not an estimate sentence.
func TestOutlookUnavailable(t *testing.T) {
	r := sampleReport()
	r.Assessment.Views = nil
	r.Assessment.Reason = status.AssessCarriersUnknown
	r.Assessment.Error = "which pages carry generation x is unknown without the serve history"
	raw, _ := render(t, r)
	if !strings.Contains(raw, "Outlook unavailable: which pages carry generation x") {
		t.Errorf("no 'Outlook unavailable' line")
	}
	if strings.Contains(raw, "Estimated probability that generation") || strings.Contains(raw, "could not run") {
		t.Errorf("an estimate sentence or 'could not run' for a generation whose carriers are unknown")
	}
}
