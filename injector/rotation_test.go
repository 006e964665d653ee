package injector

import (
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestRotationByEvidence: with what status found (Options.Archived), the
// pages keep earlier generations down to the newest the archives hold,
// more than KeepPrevious when the archives lag, none once they hold the
// current one; KeepMaxAge drops old ones anyway. While kept, the oldest
// kept generation still rebuilds from the pages alone.
func TestRotationByEvidence(t *testing.T) {
	f := newFixture(t, 40, 5)
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var gens []string
	run := func(content string, at time.Time, archived *Archived, maxAge time.Duration) *Report {
		t.Helper()
		if old, _ := os.ReadFile(filepath.Join(f.dir, "src/app/version.txt")); string(old) != content {
			f.write(t, "src/app/version.txt", content) // a rewrite is a change (its time is preserved)
		}
		o := f.options()
		o.Now = func() time.Time { return at }
		o.Archived, o.KeepMaxAge = archived, maxAge
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s at %s: generation %s new %v, kept %+v", content, at.Format(time.DateOnly), res.Generation, res.New, res.Kept)
		if res.New {
			gens = append(gens, res.Generation)
		}
		return res
	}
	run("v1", day, nil, 0)
	// What an archive captured then: the root page, carrying generation
	// 1's manifest (the pages carry only the current manifest later).
	oldRoot, err := os.ReadFile(filepath.Join(f.dir, "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	run("v2", day.Add(30*24*time.Hour), nil, 0)
	// The archives still hold only generation 1: both earlier ones stay,
	// though KeepPrevious is 1.
	res := run("v3", day.Add(60*24*time.Hour), &Archived{RestorePoint: gens[0]}, 0)
	if want := []string{gens[1], gens[0]}; !slices.Equal(keptIDs(res), want) {
		t.Fatalf("kept %v, want %v (down to the restore point)", res.Kept, want)
	}
	checkRebuilds(t, f, oldRoot, gens[0], "v1")
	// An age limit drops generation 1 (60 days old) all the same.
	res = run("v3", day.Add(60*24*time.Hour), &Archived{RestorePoint: gens[0]}, 45*24*time.Hour)
	if want := []string{gens[1]}; !slices.Equal(keptIDs(res), want) {
		t.Fatalf("with a 45-day limit kept %v, want %v", res.Kept, want)
	}
	// Nothing archived yet: everything the state holds stays.
	res = run("v3", day.Add(61*24*time.Hour), &Archived{}, 0)
	if len(res.Kept) != 1 {
		t.Fatalf("nothing archived: kept %v, want the one generation the state still holds", res.Kept)
	}
	// The archives hold the current generation: the pages drop the rest.
	res = run("v3", day.Add(62*24*time.Hour), &Archived{RestorePoint: gens[2]}, 0)
	if len(res.Kept) != 0 {
		t.Fatalf("the current generation archived: kept %v", res.Kept)
	}
	checkRebuilds(t, f, nil, gens[2], "v3")
}

// checkRebuilds rebuilds generation gen from the site's pages as they are
// now (and an archived root page, if given: where its manifest is) and
// checks its version file.
func checkRebuilds(t *testing.T, f *fixture, archivedRoot []byte, gen, want string) {
	t.Helper()
	pages := map[string][]byte{}
	if archivedRoot != nil {
		pages["archived/index.html"] = archivedRoot
	}
	entries, err := os.ReadDir(filepath.Join(f.dir, "site"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(f.dir, "site", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = b
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err = recoverPages(t, maps.All(pages), lzrecover.Options{OwnerKey: f.owner, Out: out, Generation: gen})
	if err != nil {
		t.Fatalf("generation %s from the pages: %v", gen, err)
	}
	got, err := os.ReadFile(filepath.Join(out, "app", "version.txt"))
	if err != nil || string(got) != want {
		t.Fatalf("generation %s: version %q (%v), want %q", gen, got, err, want)
	}
}

func keptIDs(res *Report) []string {
	var out []string
	for _, k := range res.Kept {
		out = append(out, k.Generation)
	}
	return out
}

// TestRotationRestorePointFirst: when the pages have room for only some
// earlier generations' blocks, the restore point's go first (the archives
// hold the rest of it), not the newest unarchived ones'; the report says
// how many of each the pages carry. The restore point was once the first
// squeezed out.
func TestRotationRestorePointFirst(t *testing.T) {
	f := newFixture(t, 12, 5)
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var gens []string
	for i := range 5 {
		noise := make([]byte, 15000)
		rand.Read(noise)
		f.write(t, "src/app/version.txt", fmt.Sprintf("v%d %x", i, noise))
		o := f.options()
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		o.Now = func() time.Time { return at }
		o.PageBudget = 40 << 10
		o.Archived = &Archived{} // nothing archived yet: every generation stays
		if i == 4 {
			o.Archived = &Archived{RestorePoint: gens[0]}
		}
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, res.Generation)
		if i < 4 {
			continue
		}
		t.Logf("kept %+v", res.Kept)
		var rp *KeptGeneration
		for j := range res.Kept {
			if res.Kept[j].Generation == gens[0] {
				rp = &res.Kept[j]
			}
		}
		if rp == nil || rp.Carried == 0 {
			t.Fatalf("restore point %s: %+v, want its blocks carried first", gens[0], rp)
		}
		short := false
		for _, k := range res.Kept {
			short = short || k.Carried < k.Blocks
			if k.Generation != gens[0] && k.Carried > 0 && rp.Carried < rp.Blocks {
				t.Errorf("generation %s carries %d blocks while the restore point lacks room for %d", k.Generation, k.Carried, rp.Blocks-rp.Carried)
			}
		}
		if !short {
			t.Fatal("every kept generation fits: the test does not squeeze the pages")
		}
	}
}

// TestRotationWithRequestsKeepsOnlyUnconfirmed: a plan counting on
// capture requests keeps the earlier generations newer than the restore
// point, not the restore point itself (the archives hold it); the plan
// for the archives' own crawls keeps it too.
func TestRotationWithRequestsKeepsOnlyUnconfirmed(t *testing.T) {
	for _, requests := range []bool{false, true} {
		f := newFixture(t, 40, 5)
		day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		var gens []string
		run := func(content string, at time.Time, archived *Archived) *Report {
			t.Helper()
			f.write(t, "src/app/version.txt", content)
			o := f.options()
			o.Now, o.Archived = func() time.Time { return at }, archived
			if requests {
				o.Requests, o.Target = PriorRequests(), DefaultRequestsTarget
			}
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			gens = append(gens, res.Generation)
			return res
		}
		run("v1", day, nil)
		run("v2", day.Add(24*time.Hour), &Archived{RestorePoint: ""})
		// Generation 1 confirmed, 2 not yet: 3 keeps 2 (and 1 without requests).
		res := run("v3", day.Add(48*time.Hour), &Archived{RestorePoint: gens[0]})
		want := []string{gens[1], gens[0]}
		if requests {
			want = want[:1]
		}
		if !slices.Equal(keptIDs(res), want) {
			t.Errorf("requests %v: kept %v, want %v", requests, keptIDs(res), want)
		}
		// Generation 3 was confirmed before 4: with requests 4 is alone.
		res = run("v4", day.Add(72*time.Hour), &Archived{RestorePoint: gens[2]})
		if n := len(res.Kept); requests && n != 0 || !requests && n != 1 {
			t.Errorf("requests %v: kept %v after the restore point's successor", requests, keptIDs(res))
		}
	}
}
