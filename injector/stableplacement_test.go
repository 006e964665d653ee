package injector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// blocksOn reads the site's pages and returns, per page and segment, the
// blocks it carries as "stripe/shard" and their segment ids.
func blocksOn(t *testing.T, site string) map[string]map[string][]string {
	t.Helper()
	out := map[string]map[string][]string{}
	entries, err := os.ReadDir(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		page, err := os.ReadFile(filepath.Join(site, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = map[string][]string{}
		for f := range htmlblock.All(page) {
			if f.Kind != htmlblock.KindBlock {
				continue
			}
			b, err := block.Parse(f.Payload)
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()][b.Name] = append(out[e.Name()][b.Name], fmt.Sprintf("%x %d/%d", b.SegmentID[:4], b.Stripe, b.Shard))
		}
	}
	return out
}

// TestUnchangedSegmentKeepsPages: `lazarus inject` run again after only
// the db changed leaves every block of the unchanged app on the page
// that carried it, and the changed db's blocks take no app block's
// place; the new generation still restores.
func TestUnchangedSegmentKeepsPages(t *testing.T) {
	f := newFixture(t, 30, 200)
	o := f.options()
	db := filepath.Join(f.dir, "db.sql")
	o.Dumps = []Dump{{Name: "db", Command: "cat " + db}}
	f.write(t, "db.sql", "INSERT 1;\n")
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(f.dir, "site")
	before := blocksOn(t, site)
	f.write(t, "db.sql", "INSERT 1;\nINSERT 2;\n")
	o.Now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	res, err := Run(context.Background(), o)
	if err != nil || !res.New {
		t.Fatalf("second run: %+v, %v; want a new generation", res, err)
	}
	after := blocksOn(t, site)
	apps := 0
	for page, segs := range before {
		apps += len(segs["app"])
		if got := after[page]["app"]; !slices.Equal(got, segs["app"]) {
			t.Errorf("%s: app blocks %v, were %v", page, got, segs["app"])
		}
	}
	if apps == 0 {
		t.Fatal("no app blocks on the pages")
	}
	if rep, _ := f.recover(t); len(rep.Segments) != 2 || rep.Generation != res.Generation {
		t.Fatalf("recovered %+v, want generation %s", rep, res.Generation)
	}
}
