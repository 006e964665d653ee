package status_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
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
