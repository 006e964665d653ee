package caddymodule

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// TestOversizedValuesRefusedUnread: whoever can write the storage puts
// 32 MiB where the handler reads a generation id (256 bytes at most) and
// a placement state. The handler refuses them without reading them: the
// reads allocate far less than the values' size, on Redis and on a file
// storage alike.
func TestOversizedValuesRefusedUnread(t *testing.T) {
	srv := redistest.Start(t)
	for name, st := range map[string]certmagic.Storage{
		"redis": redisstorage.New(srv.Client(t), redisstorage.Options{Prefix: "big"}),
		"file":  &certmagic.FileStorage{Path: t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			big := bytes.Repeat([]byte("0"), 32<<20)
			b := &bundleStore{st: st, prefix: "lazarus/site/bundle/"}
			for _, key := range []string{"lazarus/site/bundle/current", "lazarus/site/placement/g/state"} {
				if err := st.Store(ctx, key, big); err != nil {
					t.Fatal(err)
				}
			}
			h := &Handler{storage: st, ctx: ctx}
			for what, read := range map[string]func() error{
				"current": func() error { _, err := b.current(ctx); return err },
				"placement state": func() error {
					h.ownPlacement("lazarus/site/placement/g", &generation{})
					return nil
				},
			} {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := read()
				runtime.ReadMemStats(&after)
				if what == "current" && err == nil {
					t.Fatalf("%s: 32 MiB accepted", what)
				}
				if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
					t.Errorf("%s: reading a value over its limit allocated %d MiB (%v)", what, n>>20, err)
				}
			}
		})
	}
}
