package caddymodule

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// gatedStorage is a storage whose first call matching stop waits at a
// gate until the test opens it: a builder stalled there (a GC pause, a
// suspended VM) while its lock expires.
type gatedStorage struct {
	certmagic.Storage
	stop    func(op, key string) bool
	once    sync.Once
	reached chan struct{} // closed when the gate is reached
	open    chan struct{} // closed by the test
}

func newGated(st certmagic.Storage, stop func(op, key string) bool) *gatedStorage {
	return &gatedStorage{Storage: st, stop: stop, reached: make(chan struct{}), open: make(chan struct{})}
}

func (g *gatedStorage) gate(op, key string) {
	if g.stop(op, key) {
		g.once.Do(func() {
			close(g.reached)
			<-g.open
		})
	}
}

func (g *gatedStorage) Store(ctx context.Context, key string, value []byte) error {
	g.gate("store", key)
	return g.Storage.Store(ctx, key, value)
}

// Load stalls after reading, so that what was read is stale when the
// builder goes on.
func (g *gatedStorage) Load(ctx context.Context, key string) ([]byte, error) {
	v, err := g.Storage.Load(ctx, key)
	g.gate("loaded", key)
	return v, err
}

// LoadLimited is Load's, when the storage has one.
func (g *gatedStorage) LoadLimited(ctx context.Context, key string, limit int64) ([]byte, int64, error) {
	l, ok := g.Storage.(interface {
		LoadLimited(ctx context.Context, key string, limit int64) ([]byte, int64, error)
	})
	if !ok {
		return nil, 0, fmt.Errorf("%T has no LoadLimited", g.Storage)
	}
	v, n, err := l.LoadLimited(ctx, key, limit)
	g.gate("loaded", key)
	return v, n, err
}

func (g *gatedStorage) List(ctx context.Context, dir string, recursive bool) ([]string, error) {
	g.gate("list", dir)
	return g.Storage.List(ctx, dir, recursive)
}

func (g *gatedStorage) Delete(ctx context.Context, key string) error {
	g.gate("delete", key)
	return g.Storage.Delete(ctx, key)
}

// CompareAndSwap passes the storage's own, if it has one.
func (g *gatedStorage) CompareAndSwap(ctx context.Context, key string, old, new []byte) (bool, error) {
	g.gate("store", key)
	cas, ok := g.Storage.(interface {
		CompareAndSwap(ctx context.Context, key string, old, new []byte) (bool, error)
	})
	if !ok {
		return false, fmt.Errorf("%T has no CompareAndSwap", g.Storage)
	}
	return cas.CompareAndSwap(ctx, key, old, new)
}

// handlerOn is f.handler on storage st.
func (f *buildFixture) handlerOn(t *testing.T, now *time.Time, st certmagic.Storage) *Handler {
	t.Helper()
	b := f.build
	h := &Handler{Build: &b, Name: "site", Fill: true, storage: st, now: func() time.Time { return *now }}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestStalledBuilderNeverUndoesAnothersPublication: two instances share
// a Redis. Instance a's build stalls past lock_ttl at one step while
// instance b (which took the lock after a's expired) builds and publishes
// a generation; then a goes on. Whichever step a stalled at, the current
// generation is b's in the end, whole and loadable, because b published
// last: a must neither publish over it (its check that the current
// generation is unchanged passed before b published) nor delete it when
// it cleans up.
func TestStalledBuilderNeverUndoesAnothersPublication(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(op, key string) bool
	}{
		// a has checked the current generation (or not yet: an atomic
		// check is part of the publication itself).
		{"stalled before publishing", func(op, key string) bool {
			return op == "store" && (strings.HasSuffix(key, "/bundle/current") || strings.Contains(key, "/published/"))
		}},
		// a has published; its clean-up lists the generations.
		{"stalled before cleaning up", func(op, key string) bool {
			return op == "list" && strings.HasSuffix(key, "/bundle/generations")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			shared := redisstorage.New(srv.Client(t), redisstorage.Options{Prefix: "race"})
			f := newBuildFixture(t)
			now := genTime
			gated := newGated(shared, tc.stop)
			a := f.handlerOn(t, &now, shared)
			mustBuild(t, a, "new")
			t.Setenv("XDG_DATA_HOME", t.TempDir()) // b's local cache: another machine's
			b := f.handlerOn(t, &now, shared)
			a.builder.st, a.builder.bundle.st = gated, gated

			writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES (1);\n"))
			now = now.Add(2 * time.Hour)
			done := make(chan error, 1)
			go func() {
				_, err := a.builder.build(context.Background())
				done <- err
			}()
			select {
			case <-gated.reached:
			case err := <-done:
				t.Fatalf("a's build ended before its stall: %v", err)
			}
			// b holds the lock now, as after a's expired.
			writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES (2);\n"))
			res, err := b.builder.run(context.Background())
			if err != nil || !res.New {
				t.Fatalf("b's build: %+v, %v", res, err)
			}
			second := currentID(t, b)
			close(gated.open)
			aErr := <-done

			// Expected: b's generation is current and whole.
			if id := currentID(t, b); id != second {
				t.Fatalf("current generation %s, want b's %s (a's build: %v)", id, second, aErr)
			}
			if _, err := b.src.loadGeneration(context.Background(), second); err != nil {
				t.Fatalf("b's current generation cannot be loaded after a's build (%v): %v", aErr, err)
			}
		})
	}
}

// TestStalledUnchangedBuildKeepsAnothersState: instance a's build finds
// nothing changed and checks that the current generation is still the
// one it started from; then it stalls past lock_ttl while instance b
// builds and publishes a generation of changed sources, with its state.
// When a goes on, it must leave b's state alone: the next build starts
// from b's generation (nothing changed since: "unchanged"), instead of
// failing on a state whose index names files b replaced.
func TestStalledUnchangedBuildKeepsAnothersState(t *testing.T) {
	srv := redistest.Start(t)
	shared := redisstorage.New(srv.Client(t), redisstorage.Options{Prefix: "race"})
	f := newBuildFixture(t)
	now := genTime
	a := f.handlerOn(t, &now, shared)
	mustBuild(t, a, "new")
	loads := 0
	gated := newGated(shared, func(op, key string) bool {
		if op == "loaded" && strings.HasSuffix(key, "/bundle/current") {
			loads++
			return loads == 2 // the check after the injector ran
		}
		return false
	})
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	b := f.handlerOn(t, &now, shared)
	a.builder.st, a.builder.bundle.st = gated, gated

	now = now.Add(2 * time.Hour)
	done := make(chan error, 1)
	go func() {
		got, err := a.builder.build(context.Background())
		if err == nil && got != "unchanged" {
			err = fmt.Errorf("a's build: %q", got)
		}
		done <- err
	}()
	select {
	case <-gated.reached:
	case err := <-done:
		t.Fatalf("a's build ended before its stall: %v", err)
	}
	writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES (2);\n"))
	if res, err := b.builder.run(context.Background()); err != nil || !res.New {
		t.Fatalf("b's build: %+v, %v", res, err)
	}
	second := currentID(t, b)
	close(gated.open)
	<-done

	// Expected: b's next build finds its own state: nothing changed.
	now = now.Add(2 * time.Hour)
	mustBuild(t, b, "unchanged")
	if id := currentID(t, b); id != second {
		t.Fatalf("current generation %s, want b's %s", id, second)
	}
}
