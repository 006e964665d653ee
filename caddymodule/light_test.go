package caddymodule

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
)

// smallSite is a root linking to 19 pages of about 325 bytes each (the
// page a new user measured: 126 KB of blocks on it when pages were
// filled).
func smallSite() (root string, pages []string, body string) {
	var b strings.Builder
	b.WriteString("<html><body><h1>Home</h1>")
	for i := range 19 {
		pages = append(pages, fmt.Sprintf("/p%d.html", i))
		fmt.Fprintf(&b, `<a href="/p%d.html">page %d</a> `, i, i)
	}
	b.WriteString("</body></html>")
	body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>A page</title></head><body><h1>A page</h1><p>" +
		strings.Repeat("Words of a short page. ", 10) + "</p></body></html>"
	return b.String(), pages, body
}

// stripesOn counts the blocks of each stripe a page carries.
func stripesOn(t *testing.T, page []byte) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, b := range pageBlocks(t, page) {
		out[fmt.Sprintf("%s/%d", b.Name, b.Stripe)]++
	}
	return out
}

// servedSite builds a generation with h and serves the root, then every
// page it links to; it returns the bodies by path.
func servedSite(t *testing.T, h *Handler, now *time.Time) map[string][]byte {
	t.Helper()
	mustBuild(t, h, "new")
	*now = now.Add(time.Minute)
	root, pages, body := smallSite()
	out := map[string][]byte{"/": serve(t, h, &page{body: root}, "GET", "/", nil).Body.Bytes()}
	for _, p := range pages {
		out[p] = serve(t, h, &page{body: body}, "GET", p, nil).Body.Bytes()
	}
	return out
}

// TestModuleLightPages: by default the module adds to each page at most
// one block of a stripe and only blocks still short of a carrier, so a
// small backup on a small site costs a fraction of filling the pages;
// the server side still rebuilds from the pages left after 40% are lost.
func TestModuleLightPages(t *testing.T) {
	f := newBuildFixture(t)
	f.build.MaxBlockBytes, f.build.Carriers = 0, 16 // the defaults but for the site's size
	_, _, body := smallSite()
	measure := func(fill bool) (map[string][]byte, int, int) {
		now := genTime
		b := f.build
		h := &Handler{Build: &b, Name: "site", Fill: fill, storage: &certmagic.FileStorage{Path: t.TempDir()}, now: func() time.Time { return now }}
		if err := h.setup(); err != nil {
			t.Fatal(err)
		}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		served := servedSite(t, h, &now)
		total, most := 0, 0
		for p, b := range served {
			if p == "/" {
				continue
			}
			added := len(b) - len(body)
			total += added
			most = max(most, added)
		}
		return served, total, most
	}
	light, lightTotal, lightMost := measure(false)
	_, fillTotal, fillMost := measure(true)
	t.Logf("a %d-byte page: light adds at most %d bytes (%d over 19 pages); filled, %d (%d)", len(body), lightMost, lightTotal, fillMost, fillTotal)
	for p, b := range light {
		for stripe, n := range stripesOn(t, b) {
			if n > 1 {
				t.Errorf("%s carries %d blocks of stripe %s", p, n, stripe)
			}
		}
	}
	if lightTotal*4 > fillTotal || lightMost*4 > fillMost {
		t.Errorf("light pages add %d bytes (at most %d on one), filled ones %d (%d): want a quarter at most", lightTotal, lightMost, fillTotal, fillMost)
	}
	// Lose 8 of the 20 pages (40%), the root among them.
	kept := map[string][]byte{}
	for i, p := range slices.Sorted(maps.Keys(light)) {
		if i%5 >= 2 {
			kept[p] = light[p]
		}
	}
	checkRecoverFiles(t, f.owner, kept, map[string]string{"app/index.php": filepath.Join(f.src, "app/index.php"), "db": filepath.Join(f.src, "db.sql")})
}

// TestLightPlacer: a page gets one block of each stripe, only blocks with
// fewer than Copies verified carriers; once every block has them, new
// pages get nothing (and no table entry); instances sharing the storage
// agree on every page, unverified ones included.
func TestLightPlacer(t *testing.T) {
	const stripes, width = 3, 5
	g := testGeneration(stripes, width, 1000)
	st := newMemStorage()
	p := newLightPlacer(st, g, DefaultPageBudget, 1)
	q := newLightPlacer(st, g, DefaultPageBudget, 1)
	seen := map[int]int{}
	for i := range width {
		a := mustAssign(t, p, fmt.Sprintf("/p%d", i), true)
		if len(a.blocks) != stripes {
			t.Fatalf("page %d carries %d blocks, want one of each of the %d stripes", i, len(a.blocks), stripes)
		}
		perStripe := map[uint32]int{}
		for _, b := range a.blocks {
			seen[b]++
			perStripe[g.blocks[b].ref.Stripe]++
		}
		for s, n := range perStripe {
			if n > 1 {
				t.Fatalf("page %d carries %d blocks of stripe %d", i, n, s)
			}
		}
	}
	if len(seen) != len(g.blocks) {
		t.Fatalf("%d of %d blocks placed after %d pages", len(seen), len(g.blocks), width)
	}
	for b, n := range seen {
		if n != 1 {
			t.Errorf("block %d on %d pages, want 1", b, n)
		}
	}
	if a := mustAssign(t, p, "/late", true); len(a.blocks) != 0 {
		t.Errorf("a page after every block has its carrier gets %d blocks", len(a.blocks))
	}
	if a := mustAssign(t, q, "/late2", true); len(a.blocks) != 0 {
		t.Errorf("the other instance gives a late page %d blocks", len(a.blocks))
	}
	for i := range width {
		key := fmt.Sprintf("/p%d", i)
		if !slices.Equal(mustAssign(t, q, key, true).blocks, mustAssign(t, p, key, true).blocks) {
			t.Errorf("%s: the instances disagree", key)
		}
	}
	// An unverified page on a fresh generation gets a record of its own,
	// the same on both instances and the same once verified.
	g2 := testGeneration(stripes, width, 1000)
	g2.id = "fedcba9876543210fedcba9876543210"
	st2 := newMemStorage()
	p2, q2 := newLightPlacer(st2, g2, DefaultPageBudget, 1), newLightPlacer(st2, g2, DefaultPageBudget, 1)
	un, err := p2.assign(context.Background(), placeRequest{key: "/junk", create: true, room: roomy})
	if err != nil || len(un.blocks) == 0 {
		t.Fatalf("unverified page: %v, %v", un, err)
	}
	again := mustAssign(t, q2, "/junk", true)
	if !slices.Equal(un.blocks, again.blocks) || !bytes.Equal([]byte(fmt.Sprint(un.blocks)), []byte(fmt.Sprint(again.blocks))) {
		t.Errorf("unverified %v, then verified on the other instance %v", un.blocks, again.blocks)
	}
}
