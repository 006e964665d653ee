package recover_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestStatusLocalCache: a mirror directory is read whole each run, but a
// page the state directory knows is not scanned again: the second run
// takes every capture from the cache and reports the same. A cache entry
// that is damaged is not trusted: the third run reads those pages again
// and still reports the same.
func TestStatusLocalCache(t *testing.T) {
	site := newStatusSite(t, 4)
	g := site.inject(t, statusT1)
	dir := mirror(t, g.pages, statusT1.Add(time.Hour))
	state := t.TempDir()
	o := lzrecover.StatusOptions{SiteURL: "https://example.org/", ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []lzrecover.Source{lzrecover.DirSource{Dir: dir}}, StateDir: state}
	first := runStatus(t, o)
	if first.RestorePoint == nil || first.RestorePoint.Generation != g.id {
		t.Fatalf("restore point %+v, want generation %s", first.RestorePoint, g.id)
	}
	for _, how := range []string{lzrecover.HowCache, lzrecover.HowFetched} {
		if how == lzrecover.HowFetched {
			entries, err := filepath.Glob(filepath.Join(state, "status", "*.json"))
			if err != nil || len(entries) == 0 {
				t.Fatalf("cache entries %v: %v", entries, err)
			}
			for _, e := range entries {
				if err := os.WriteFile(e, []byte(`{"v":2,"blocks":["AAAA"]}`), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		rep := runStatus(t, o)
		if !reflect.DeepEqual(rep.Generations, first.Generations) || !reflect.DeepEqual(rep.RestorePoint, first.RestorePoint) {
			t.Fatalf("%s run differs:\n%+v\n%+v", how, rep.Generations, first.Generations)
		}
		if len(rep.Captures) != len(first.Captures) {
			t.Fatalf("%s run: %d captures, want %d", how, len(rep.Captures), len(first.Captures))
		}
		for _, c := range rep.Captures {
			if c.How != how {
				t.Fatalf("%s run: capture %s is %q", how, c.URL, c.How)
			}
		}
	}
}
