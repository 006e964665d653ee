package status_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestForgedCacheCannotMakeGenerationRecoverable: rewriting the state
// directory's cache so that one verified block stands for every position
// does not make a generation recoverable: every counted field is covered
// by the signature checked on reload, so a rewritten entry either fails
// its check (and the capture is fetched again) or holds no more than it
// did.
func TestForgedCacheCannotMakeGenerationRecoverable(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", "", "p0.html")...)
	})
	state := t.TempDir()
	first := w.status(t, false, state)
	if rp := first.RestorePoint; rp == nil || rp.Generation != w.g1.id {
		t.Fatalf("first run: restore point %+v", rp)
	}
	files, _ := filepath.Glob(filepath.Join(state, "status", "*.json"))
	if len(files) == 0 {
		t.Fatal("no cache entries")
	}
	for _, f := range files {
		forgeCacheEntry(t, f)
	}
	// What a forger without the key can do to the new format (repeat a
	// verified block) loses blocks at most: it must never make the newest
	// generation recoverable.
	again := w.status(t, false, state)
	if rp := again.RestorePoint; rp != nil && (rp.Newest || rp.Generation == w.g2.id) {
		t.Fatalf("forged cache: restore point %+v, want generation 1 (older) or none", rp)
	}
}

// forgeCacheEntry duplicates an entry's first block under every segment,
// stripe and shard its layouts allow (or, for raw blocks, many times).
func forgeCacheEntry(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	blocks, _ := e["blocks"].([]any)
	if len(blocks) == 0 {
		return
	}
	var out []any
	first, isObj := blocks[0].(map[string]any)
	layouts, _ := e["layouts"].([]any)
	if !isObj || len(layouts) == 0 {
		for range 64 {
			out = append(out, blocks[0])
		}
	}
	for li, l := range layouts {
		lm := l.(map[string]any)
		k, m, stripes := int(lm["k"].(float64)), int(lm["m"].(float64)), int(lm["stripes"].(float64))
		for s := 0; s < stripes; s++ {
			for sh := 0; sh < k+m; sh++ {
				b := map[string]any{}
				for kk, v := range first {
					b[kk] = v
				}
				b["seg"], b["stripe"], b["shard"] = li, s, sh
				out = append(out, b)
			}
		}
	}
	e["blocks"] = out
	raw, _ = json.Marshal(e)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatedCarrierCountsEachBlockOnce: a capture that repeats one
// carrier page fifty times (a hostile archive's 31 MiB pages of one
// carrier, smaller) is credited with each of the carrier's blocks once,
// and its cache entry holds each once: it costs the state directory what
// the carrier costs, not fifty times that.
func TestRepeatedCarrierCountsEachBlockOnce(t *testing.T) {
	var carrier []byte
	w := newStatusWorld(t, func(w *statusWorld) {
		carrier = w.g2.pages["https://example.org/p0.html"]
		c := w.g2.plant(statusT2.Add(day), "", "p1.html")[0]
		c.Body = append(bytes.Repeat(carrier, 50), "<!-- p1 -->"...)
		w.wayback = append(w.wayback, c)
	})
	state := t.TempDir()
	rep := w.status(t, false, state)
	distinct := 0
	for _, stripes := range expectShards(t, w.wayback) {
		for _, shards := range stripes {
			distinct += len(shards)
		}
	}
	if len(rep.Captures) != 1 || rep.Captures[0].Blocks != distinct {
		t.Fatalf("captures %+v; want one credited with %d blocks (each once)", rep.Captures, distinct)
	}
	if n := cacheBytes(t, state); n > 2*int64(len(carrier)) {
		t.Fatalf("cache holds %d bytes for a carrier of %d repeated: each block is kept more than once", n, len(carrier))
	}
}

// TestStatusCacheBounded: a cache entry larger than the bound per entry
// is not written (the capture is fetched again next time), the entries
// together stay within the bound in all, the least recently used going
// first, and entries not used for the longest age are deleted when the
// cache is opened.
func TestStatusCacheBounded(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", w.g2.names()...)...)
	})
	state := t.TempDir()
	w.status(t, false, state)
	full := cacheBytes(t, state)
	entries := cacheEntries(t, state)
	if len(entries) != 18 {
		t.Fatalf("%d cache entries, want one per page version (18)", len(entries))
	}
	var largest int64
	for _, e := range entries {
		largest = max(largest, e.size)
	}

	// Expected: at most the bound in all, on every run.
	limit := full / 3
	defer status.SetCacheLimits(largest, limit, 0)()
	small := t.TempDir()
	for range 3 {
		w.status(t, false, small)
		if n := cacheBytes(t, small); n > limit || n == 0 {
			t.Fatalf("cache holds %d bytes, bound %d", n, limit)
		}
	}

	// Expected: no entry above the bound per entry.
	status.SetCacheLimits(largest-1, full, 0)
	one := t.TempDir()
	w.status(t, false, one)
	if got := len(cacheEntries(t, one)); got >= len(entries) {
		t.Fatalf("%d entries with a bound per entry below the largest, want fewer than %d", got, len(entries))
	}
	for _, e := range cacheEntries(t, one) {
		if e.size > largest-1 {
			t.Fatalf("entry %s of %d bytes, bound %d", e.name, e.size, largest-1)
		}
	}

	// Expected: entries unused for longer than the age are deleted when a
	// run opens the cache, even one that lists nothing.
	status.SetCacheLimits(largest, full, 90*day)
	old := time.Now().Add(-91 * day)
	for _, e := range cacheEntries(t, state) {
		if err := os.Chtimes(e.name, old, old); err != nil {
			t.Fatal(err)
		}
	}
	empty, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	o := w.statusOpts(false, state)
	o.Sources = []source.Source{source.CDXSource{Base: empty.URL, Label: "empty", Client: source.NewClient(source.ClientOptions{Rate: 600000})}}
	runStatus(t, o)
	if got := cacheEntries(t, state); len(got) != 0 {
		t.Fatalf("%d entries unused for 91 days kept, want none", len(got))
	}
}

type cacheEntry struct {
	name string
	size int64
}

// cacheEntries lists the status cache's entries in a state directory.
func cacheEntries(t *testing.T, state string) []cacheEntry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(state, "status", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []cacheEntry
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cacheEntry{f, info.Size()})
	}
	return out
}

// cacheBytes is the size of the status cache's entries in all.
func cacheBytes(t *testing.T, state string) int64 {
	t.Helper()
	var n int64
	for _, e := range cacheEntries(t, state) {
		n += e.size
	}
	return n
}
