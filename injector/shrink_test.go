package injector

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShrunkDumpHoldsTheGenerationBefore: a dump whose output falls from
// 300 KiB to a few bytes (a mistyped database path) makes its generation
// with a warning, and the generation before stays on the pages through
// later deploys (KeepPrevious alone would push it off), still rebuilding
// from them; accepting the shrink lets it go.
func TestShrunkDumpHoldsTheGenerationBefore(t *testing.T) {
	f := newFixture(t, 30, 3)
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	big := make([]byte, 300<<10)
	rand.Read(big)
	f.write(t, "db.sql", string(big))
	run := func(i int, version string, accept bool) *Report {
		t.Helper()
		f.write(t, "src/app/version.txt", version)
		o := f.options()
		o.Dumps = []Dump{{Name: "db", Command: "cat " + filepath.Join(f.dir, "db.sql")}}
		o.Now = func() time.Time { return day.Add(time.Duration(i) * time.Hour) }
		o.AcceptShrink = accept
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("run %d: %s kept %+v shrunk %+v warnings %q", i, res.Generation, res.Kept, res.Shrunk, res.Warnings)
		return res
	}
	good := run(0, "v1", false)
	if len(good.Shrunk) != 0 {
		t.Fatalf("first run: shrunk %+v", good.Shrunk)
	}
	// What an archive captured then: the root page with its manifest (the
	// pages carry only the current generation's manifest later).
	archivedRoot, err := os.ReadFile(filepath.Join(f.dir, "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "db.sql", "-- no such database\n")
	for i, version := range []string{"v2", "v3", "v4"} {
		res := run(i+1, version, false)
		if len(res.Shrunk) != 1 || res.Shrunk[0].Name != "db" || res.Shrunk[0].Generation != good.Generation {
			t.Fatalf("deploy %s: shrunk %+v, want db measured against %s", version, res.Shrunk, good.Generation)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), `segment "db" (dump db) shrank from 302 KiB in generation `+good.Generation+` to 2.0 KiB`) {
			t.Errorf("deploy %s: warnings %q", version, res.Warnings)
		}
		held := false
		for _, k := range res.Kept {
			held = held || k.Generation == good.Generation && k.Held && k.Carried == k.Blocks
		}
		if !held {
			t.Fatalf("deploy %s: kept %+v, want %s held whole on the pages", version, res.Kept, good.Generation)
		}
	}
	checkRebuilds(t, f, archivedRoot, good.Generation, "v1")
	res := run(4, "v5", true)
	for _, k := range res.Kept {
		if k.Generation == good.Generation {
			t.Errorf("accepted: %s still kept", good.Generation)
		}
	}
	if len(res.Shrunk) != 0 {
		t.Errorf("accepted: shrunk %+v", res.Shrunk)
	}
}

// TestEmptyIncludeWarns: an included directory without a file is
// preserved with a warning; with AcceptShrink, without one.
func TestEmptyIncludeWarns(t *testing.T) {
	f := newFixture(t, 8, 3)
	if err := os.MkdirAll(filepath.Join(f.dir, "src/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, accept := range []bool{false, true} {
		o := f.options()
		o.Includes = append(o.Includes, Include{Path: filepath.Join(f.dir, "src/empty")})
		o.DryRun, o.AcceptShrink = true, accept
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(res.Warnings, "\n"), `segment "empty"`)
		if warned == accept || (len(res.Shrunk) == 1) == accept {
			t.Fatalf("accept %v: warnings %q, shrunk %+v", accept, res.Warnings, res.Shrunk)
		}
		if !accept && (res.Shrunk[0].Name != "empty" || !res.Shrunk[0].Empty) {
			t.Errorf("shrunk %+v", res.Shrunk)
		}
	}
}
