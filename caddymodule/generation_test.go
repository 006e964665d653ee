package caddymodule

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGenerationSwitch: a new generation in current is used once
// ReloadInterval has passed, not before.
func TestGenerationSwitch(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	old := serve(t, h, &page{body: html}, "GET", "/a", nil)
	oldID := h.gen.Load().id
	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	f.opts.Now = func() time.Time { return genTime.Add(time.Hour) }
	f.inject(t)
	newID, err := readCurrent(f.bundle)
	if err != nil || newID == oldID {
		t.Fatalf("injector did not make a new generation: %v", err)
	}
	same := serve(t, h, &page{body: html}, "GET", "/a", nil)
	if !bytes.Equal(same.Body.Bytes(), old.Body.Bytes()) {
		t.Fatal("switched before the reload interval")
	}
	now = now.Add(DefaultReloadInterval)
	w := serve(t, h, &page{body: html}, "GET", "/a", nil)
	if h.gen.Load().id != newID || w.Header().Get("ETag") == old.Header().Get("ETag") {
		t.Fatal("new generation not picked up")
	}
	if w.Header().Get("Last-Modified") != genTime.Add(time.Hour).Format("Mon, 02 Jan 2006 15:04:05 GMT") {
		t.Fatalf("Last-Modified %s", w.Header().Get("Last-Modified"))
	}
}

// TestBadBundle: a broken current keeps the loaded generation.
func TestBadBundle(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := time.Unix(1000, 0)
	h.now = func() time.Time { return now }
	serve(t, h, &page{body: html}, "GET", "/a", nil)
	g := h.gen.Load()
	for _, bad := range []string{"", "zz\n", "00000000000000000000000000000000\n"} {
		writeFile(t, filepath.Join(f.bundle, "current"), []byte(bad))
		now = now.Add(DefaultReloadInterval)
		// Expected: the error is logged and the old generation stays.
		if w := serve(t, h, &page{body: html}, "GET", "/a", nil); !hasComments(w.Body.Bytes()) || h.gen.Load() != g {
			t.Fatalf("current %q: generation dropped", bad)
		}
	}
}

func TestPickDeterministic(t *testing.T) {
	g := &generation{id: "0123456789abcdef0123456789abcdef"}
	for i := range 50 {
		g.blocks = append(g.blocks, blockFile{size: int64(1000 + i)})
	}
	budget := 5 * armoredSize(1049)
	for _, key := range []string{"/", "/x", "/y/z"} {
		a, b := g.pick(key, budget), g.pick(key, budget)
		if len(a) != 5 || !equalInts(a, b) {
			t.Fatalf("%s: %v then %v", key, a, b)
		}
		seen := map[int]bool{}
		for _, i := range a {
			if seen[i] {
				t.Fatalf("%s: block %d twice in %v", key, i, a)
			}
			seen[i] = true
		}
	}
	if one := g.pick("/", 1); len(one) != 1 {
		t.Fatalf("tiny budget: %v, want one block", one)
	}
	if all := g.pick("/", 1<<40); len(all) != 50 {
		t.Fatalf("huge budget: %d blocks, want all 50", len(all))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestArmoredSize(t *testing.T) {
	c := newBlockCache(1 << 20)
	dir := t.TempDir()
	for _, n := range []int{1, 2, 3, 56, 57, 58, 1024, 4000} {
		p := filepath.Join(dir, "b")
		if err := os.WriteFile(p, bytes.Repeat([]byte{7}, n), 0o644); err != nil {
			t.Fatal(err)
		}
		g := &generation{id: "g", blocks: []blockFile{{path: p, size: int64(n)}}}
		c = newBlockCache(1 << 20)
		a, err := c.armored(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(a)+1) != armoredSize(int64(n)) {
			t.Errorf("%d bytes: armored %d+1, computed %d", n, len(a), armoredSize(int64(n)))
		}
	}
}
