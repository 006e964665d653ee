package caddymodule

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestSelfBuildingVolatileDump: a build whose dump changed only in the
// lines its volatile patterns match (a dated trailer, a cache row) makes
// no new generation, every build for hours, and the pages keep restoring
// the output preserved first, byte for byte; a change in substance makes
// a new generation.
func TestSelfBuildingVolatileDump(t *testing.T) {
	f := newBuildFixture(t)
	f.build.Dumps[0].Volatile = []string{`^-- Dump completed on `, `^INSERT INTO options VALUES \('_transient_`}
	dump := func(minute int, rows string) string {
		return fmt.Sprintf("CREATE TABLE t (x);\nINSERT INTO t VALUES %s;\nINSERT INTO options VALUES ('_transient_styles', '%d');\n-- Dump completed on 2026-11-28 10:%02d:00\n", rows, minute*7, minute)
	}
	db := filepath.Join(f.src, "db.sql")
	first := filepath.Join(t.TempDir(), "first.sql")
	writeFile(t, db, []byte(dump(0, "(1)")))
	writeFile(t, first, []byte(dump(0, "(1)")))
	now := genTime
	h := f.handler(t, &now)
	mustBuild(t, h, "new")
	gen := currentID(t, h)
	for i := 1; i <= 5; i++ {
		writeFile(t, db, []byte(dump(i, "(1)")))
		now = now.Add(2 * time.Hour)
		mustBuild(t, h, "unchanged")
		if currentID(t, h) != gen {
			t.Fatalf("build %d: the volatile lines made a new generation", i)
		}
	}
	pages := map[string][]byte{}
	for _, u := range []string{"/", "/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k"} {
		pages[u] = serve(t, h, &page{body: html}, "GET", u, nil).Body.Bytes()
	}
	checkRecoverFiles(t, f.owner, pages, map[string]string{"db": first})

	writeFile(t, db, []byte(dump(6, "(1), (2)")))
	now = now.Add(2 * time.Hour)
	mustBuild(t, h, "new")
}
