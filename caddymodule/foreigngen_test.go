package caddymodule

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// TestForeignGenerationNotServed: whoever can write the shared Redis (a
// co-tenant of the database, another site configured with the same name)
// stores a whole generation of their own under the handler's keys and
// makes it current: one signed by another key, or by the handler's key
// for another site. A self-building handler knows its key and site: it
// never serves that generation's blocks, and keeps serving its own.
func TestForeignGenerationNotServed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other func(t *testing.T, f *buildFixture) *buildFixture
	}{
		{"another key", func(t *testing.T, f *buildFixture) *buildFixture {
			return newBuildFixture(t)
		}},
		{"another site", func(t *testing.T, f *buildFixture) *buildFixture {
			o := *f
			o.build.SiteURL = "https://other.example/"
			return &o
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			shared := redisstorage.New(srv.Client(t), redisstorage.Options{Prefix: "tenant"})
			f := newBuildFixture(t)
			now := genTime
			h := f.handlerOn(t, &now, shared)
			mustBuild(t, h, "new")
			own := currentID(t, h)
			now = now.Add(time.Minute)
			if got := generations(t, serve(t, h, &page{body: html}, "GET", "/", nil).Body.Bytes()); got[own] == 0 {
				t.Fatalf("own generation not served: %v", got)
			}

			// The other party builds in storage of its own, then copies
			// the generation in and makes it current.
			other := tc.other(t, f)
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			oNow := now
			oh := other.handlerOn(t, &oNow, &certmagic.FileStorage{Path: t.TempDir()})
			mustBuild(t, oh, "new")
			foreign := currentID(t, oh)
			gen := "lazarus/site/bundle/generations/" + foreign + "/"
			dir := filepath.Join(oh.storage.(*certmagic.FileStorage).Path, filepath.FromSlash(gen))
			ctx := context.Background()
			if _, err := storeTree(ctx, shared, gen, dir, nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := shared.Store(ctx, "lazarus/site/bundle/current", []byte(foreign+"\n")); err != nil {
				t.Fatal(err)
			}

			// Expected: after the reload interval, pages still carry the
			// handler's own generation, never the other one.
			now = now.Add(2 * time.Duration(h.ReloadInterval))
			for _, u := range []string{"/", "/a", "/b", "/c"} {
				got := generations(t, serve(t, h, &page{body: html}, "GET", u, nil).Body.Bytes())
				if got[foreign] > 0 || got[own] == 0 {
					t.Fatalf("%s: blocks by generation %v; want only the handler's own %s, never %s", u, got, own, foreign)
				}
			}
		})
	}
}

// TestForeignBlocksInOwnGenerationNotServed: the other party keeps the
// handler's own current generation (its manifest is genuine) but writes
// blocks of theirs over its blocks, under the same names. A self-building
// handler checks every block it reads from storage against the
// generation's manifest and its key: none of theirs goes out.
func TestForeignBlocksInOwnGenerationNotServed(t *testing.T) {
	srv := redistest.Start(t)
	shared := redisstorage.New(srv.Client(t), redisstorage.Options{Prefix: "tenant"})
	ctx := context.Background()
	now := genTime
	other := newBuildFixture(t)
	oh := other.handlerOn(t, &now, &certmagic.FileStorage{Path: t.TempDir()})
	mustBuild(t, oh, "new")
	foreign := currentID(t, oh)
	foreignDir := filepath.Join(oh.storage.(*certmagic.FileStorage).Path, "lazarus/site/bundle/generations", foreign, "blocks")

	f := newBuildFixture(t)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	h := f.handlerOn(t, &now, shared)
	mustBuild(t, h, "new")
	own := currentID(t, h)
	ownBlocks := "lazarus/site/bundle/generations/" + own + "/blocks/"
	theirs, err := hashTree(foreignDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	swapped := 0
	for rel := range theirs {
		if !shared.Exists(ctx, ownBlocks+rel) {
			continue
		}
		v, err := os.ReadFile(filepath.Join(foreignDir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if err := shared.Store(ctx, ownBlocks+rel, v); err != nil {
			t.Fatal(err)
		}
		swapped++
	}
	if swapped == 0 {
		t.Fatal("no block names in common")
	}
	now = now.Add(time.Minute)
	for _, u := range []string{"/", "/a", "/b", "/c", "/d"} {
		if got := generations(t, serve(t, h, &page{body: html}, "GET", u, nil).Body.Bytes()); got[foreign] > 0 {
			t.Fatalf("%s: blocks by generation %v: the other party's %s served", u, got, foreign)
		}
	}
}
