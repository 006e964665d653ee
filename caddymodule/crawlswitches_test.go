package caddymodule

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// crawledBlocks counts, per segment version (name and the generation that
// made it), the distinct blocks of each stripe that pages hold, and the k
// each stripe needs.
type crawledBlocks map[string]map[uint32]map[uint16]bool

func collectBlocks(t *testing.T, pages map[string][]byte) (crawledBlocks, map[string]int) {
	t.Helper()
	got, need := crawledBlocks{}, map[string]int{}
	for _, page := range pages {
		for _, b := range pageBlocks(t, page) {
			v := b.Name + "@" + hex.EncodeToString(b.Generation[:])[:8]
			if got[v] == nil {
				got[v] = map[uint32]map[uint16]bool{}
			}
			if got[v][b.Stripe] == nil {
				got[v][b.Stripe] = map[uint16]bool{}
			}
			got[v][b.Stripe][b.Shard] = true
			need[v] = int(b.K)
		}
	}
	return got, need
}

// summary says, per segment version, the fewest distinct blocks of a
// stripe that pages hold against the k it needs.
func (c crawledBlocks) summary(need map[string]int) string {
	var out []string
	for _, v := range slices.Sorted(maps.Keys(c)) {
		fewest := -1
		for _, shards := range c[v] {
			if fewest < 0 || len(shards) < fewest {
				fewest = len(shards)
			}
		}
		out = append(out, fmt.Sprintf("%s: %d stripes seen, fewest %d blocks of k=%d", v, len(c[v]), fewest, need[v]))
	}
	return strings.Join(out, "; ")
}

// TestPacedCrawlAcrossSwitches: real Caddy serves a site of 31 linked
// pages with the module placing a bundle's blocks live; a crawler whose
// User-Agent the module does not know (no switch is held for it) reads
// one page at a time while three new generations are published, each
// with a changed db and the same app. What it got rebuilds a coherent
// restore point: the app whole, and the db of the generation recovered.
// Before unchanged segments kept their pages, each generation placed the
// app from its first blocks again, on whichever pages came next: the
// crawl held the same few blocks of the app four times over and recovery
// failed.
func TestPacedCrawlAcrossSwitches(t *testing.T) {
	s := sitetest.NewSite(t)
	app := make([]byte, 200_000) // random: 15 data blocks of 8 KiB
	rand.Read(app)
	writeFile(t, s.Path("src/app/data.bin"), app)
	db := s.Path("src/db.sql")
	clock := time.Now().UTC().Truncate(time.Second)
	o := s.DefaultOptions("https://example.org/")
	o.Includes = s.Include("app")
	o.Dumps = []injector.Dump{{Name: "db", Command: "cat " + db}}
	o.SiteDir, o.BundleDir, o.Carriers, o.MaxBlockBytes = "", s.Path("bundle"), 31, 8192
	o.Target, o.Redundancy = 0, 1 // one parity block per data block: the app in one stripe of k=15 on 30 pages
	o.Now = func() time.Time { return clock }
	dbOf := map[string][]byte{} // generation → its db
	var published []string
	publish := func(n int) {
		content := fmt.Appendf(nil, "CREATE TABLE t (x);\nINSERT INTO t VALUES (%d);\n", n)
		writeFile(t, db, content)
		clock = clock.Add(time.Minute)
		id := sitetest.Inject(t, o).Generation
		dbOf[id], published = content, append(published, id)
	}
	publish(1)

	site := t.TempDir()
	var index strings.Builder
	index.WriteString("<!DOCTYPE html><html><head><title>Home</title></head><body>")
	paths := []string{"/"}
	for i := 1; i <= 30; i++ {
		p := fmt.Sprintf("/p%d.html", i)
		paths = append(paths, p)
		fmt.Fprintf(&index, `<a href="%s">post %d</a> `, p, i)
		writeFile(t, filepath.Join(site, p), fmt.Appendf(nil, "<!DOCTYPE html><html><head><title>Post %d</title></head><body><p>%s</p></body></html>", i, strings.Repeat("Words. ", 40)))
	}
	index.WriteString("</body></html>")
	writeFile(t, filepath.Join(site, "index.html"), []byte(index.String()))
	const reload = 20 * time.Millisecond
	addr := runCaddyRouteOn(t, t.TempDir(), fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "reload_interval": %d}, {"handler": "file_server", "root": %q}`,
		o.BundleDir, reload, site))

	ua := map[string]string{"User-Agent": "ExampleBot/0.1 (+https://crawler.example.net/)"}
	pages := map[string][]byte{}
	for i, p := range paths {
		if i > 0 && i%8 == 0 { // a new generation every 8 pages: 4 in all
			publish(i / 8 * 10)
			time.Sleep(2 * reload) // the next request reloads
		}
		resp, body := get(t, "GET", "http://"+addr+p, ua)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", p, resp.StatusCode)
		}
		pages["https://example.org"+p] = body
		time.Sleep(reload / 4) // paced: a page at a time
	}
	if len(dbOf) != 4 {
		t.Fatalf("%d generations published, want 4", len(dbOf))
	}
	got, need := collectBlocks(t, pages)
	t.Logf("blocks the crawl collected: %s", got.summary(need))

	out := filepath.Join(t.TempDir(), "out")
	rep, err := sitetest.RecoverPages(t, maps.All(pages), lzrecover.Options{OwnerKey: s.Owner.Marshal(), Out: out})
	// Expected: a whole generation; an older one than the newest is
	// coherent too (the newest's manifest is on pages read before it was
	// published), never segments of different generations.
	if err != nil && !errors.Is(err, lzrecover.ErrOlder) || errors.Is(err, lzrecover.ErrNotCoherent) {
		t.Fatalf("recover: %v (%+v)", err, rep)
	}
	if rep.Generation == "" || dbOf[rep.Generation] == nil {
		t.Fatalf("no coherent restore point of a published generation: %q", rep.Generation)
	}
	t.Logf("restored generation %d of 4 (%v)", slices.Index(published, rep.Generation)+1, err)
	if b, err := os.ReadFile(filepath.Join(out, "app/data.bin")); err != nil || !bytes.Equal(b, app) {
		t.Fatalf("app: %d bytes restored, %v; want the %d published", len(b), err, len(app))
	}
	if b, err := os.ReadFile(filepath.Join(out, "db")); err != nil || !bytes.Equal(b, dbOf[rep.Generation]) {
		t.Fatalf("db: %q, %v; want generation %s's %q", b, err, rep.Generation, dbOf[rep.Generation])
	}
}
