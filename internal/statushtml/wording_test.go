package statushtml

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// TestSingulars: counts of one read in the singular everywhere on the
// page, and a stripe's blocks read "8 (1 needed)".
func TestSingulars(t *testing.T) {
	r := recentReport()
	r.Captures = r.Captures[:1]
	r.History = status.History{Stores: 1, Records: 1, Manifests: 1, Skipped: 1}
	r.Assessment = &status.Assessment{Generation: "g1", Target: 0.99, Pages: 1, Carriers: 1,
		Views: []status.ModelView{{Name: "sweep", Reached: true, At: curve(denseTimes)}}}
	_, doc := render(t, r)
	all := strings.Join(strings.Fields(text(doc)), " ")
	if bad := regexp.MustCompile(`\b1 (store|page version|manifest|damaged entrie|capture|carrier page|page|generation|block|segment|stripe)s\b`).FindAllString(all, -1); bad != nil {
		t.Errorf("the page says %q", bad)
	}
	for _, want := range []string{"1 capture listed", "1 store, 1 page version, 1 manifest, 1 damaged entry skipped", "its 1 carrier page (1 page modelled)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	row := find(doc, func(n *html.Node) bool { return hasClass(n, "segment") })[0]
	if cells := find(row, func(n *html.Node) bool { return n.Data == "td" }); text(cells[3]) != "8 (1 needed)" {
		t.Errorf("the fewest blocks in a stripe read %q, want \"8 (1 needed)\"", text(cells[3]))
	}
	r.History = status.History{Stores: 2, Skipped: 3}
	if _, doc := render(t, r); !strings.Contains(text(doc), "2 stores, 0 page versions, 0 manifests, 3 damaged entries skipped") {
		t.Errorf("plurals are wrong: %q", text(doc))
	}
}

// TestSourcesTable: a source's spot checks, distrust and captures left
// unfetched are shown, and the page says what unfetched captures mean.
func TestSourcesTable(t *testing.T) {
	r := sampleReport()
	r.Sources[0].SpotChecked, r.Sources[0].Distrusted, r.Sources[0].Unfetched = 3, true, 1
	_, doc := render(t, r)
	row := find(byID(t, doc, "sources"), func(n *html.Node) bool { v, _ := attr(n, "data-source"); return v == r.Sources[0].Name })[0]
	cells := find(row, func(n *html.Node) bool { return n.Data == "td" })
	if text(cells[3]) != "3" || text(cells[7]) != "1" || !strings.Contains(text(cells[0]), "distrusted") {
		t.Errorf("the row reads %q", text(row))
	}
	if !strings.Contains(text(doc), "Left unfetched: 1 capture whose") {
		t.Error("the page does not explain the capture left unfetched")
	}
}
