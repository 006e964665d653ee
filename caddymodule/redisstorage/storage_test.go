package redisstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// newStorage starts a redis-server and returns a Storage on it.
func newStorage(t *testing.T, o Options) (*Storage, *redistest.Server) {
	t.Helper()
	srv := redistest.Start(t)
	return New(srv.Client(t), o), srv
}

// TestStoreLoad: values round-trip byte for byte (empty, binary, large),
// overwrite replaces, and a missing key is fs.ErrNotExist.
func TestStoreLoad(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 1<<18)
	for _, v := range [][]byte{{}, []byte("x"), []byte("a\x00b\r\n"), big} {
		if err := s.Store(ctx, "a/b/c", v); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "a/b/c")
		if err != nil || !bytes.Equal(got, v) {
			t.Fatalf("Load after Store of %d bytes: %d bytes, %v", len(v), len(got), err)
		}
	}
	for _, k := range []string{"a/b", "a/b/c/d", "nope"} {
		if _, err := s.Load(ctx, k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load(%q) = %v, want fs.ErrNotExist", k, err)
		}
	}
	if err := s.Store(ctx, "", []byte("x")); err == nil {
		t.Error("Store of an empty key succeeded")
	}
}

// TestStat: a file has its size, a recent modification time and is
// terminal; a directory is not terminal; a missing key is fs.ErrNotExist.
func TestStat(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	before := time.Now().Add(-time.Minute) // the server's clock, not ours
	if err := s.Store(ctx, "d/e/f", []byte("12345")); err != nil {
		t.Fatal(err)
	}
	fi, err := s.Stat(ctx, "d/e/f")
	if err != nil || !fi.IsTerminal || fi.Size != 5 || fi.Key != "d/e/f" || fi.Modified.Before(before) {
		t.Errorf("Stat(file) = %+v, %v", fi, err)
	}
	for _, d := range []string{"d", "d/e"} {
		fi, err := s.Stat(ctx, d)
		if err != nil || fi.IsTerminal {
			t.Errorf("Stat(%q) = %+v, %v, want a directory", d, fi, err)
		}
	}
	for _, k := range []string{"d/e/f/g", "d/e/", "d/ef", "x"} {
		if _, err := s.Stat(ctx, k); !errors.Is(err, fs.ErrNotExist) && k != "d/e/" {
			t.Errorf("Stat(%q) = %v, want fs.ErrNotExist", k, err)
		}
	}
	if !s.Exists(ctx, "d") || !s.Exists(ctx, "d/e/f") || s.Exists(ctx, "d/e/f/g") || s.Exists(ctx, "de") {
		t.Error("Exists disagrees with Stat")
	}
}

// tree stores a small tree whose names sort around '/' ("a.txt" and "a0"
// before and after "a/…") to catch prefix mistakes.
func tree(t *testing.T, s *Storage) {
	t.Helper()
	for _, k := range []string{"r/a.txt", "r/a/1", "r/a/2", "r/a/b/3", "r/a0", "r/b", "r/c/d/e/4", "ra/x", "r.x"} {
		if err := s.Store(context.Background(), k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestList: non-recursive lists the files and directories directly in a
// directory, recursive every file and directory below it, as
// certmagic.FileStorage does; a missing directory is fs.ErrNotExist.
func TestList(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	tree(t, s)
	for _, tc := range []struct {
		dir       string
		recursive bool
		want      []string
	}{
		{"r", false, []string{"r/a", "r/a.txt", "r/a0", "r/b", "r/c"}},
		{"r/", false, []string{"r/a", "r/a.txt", "r/a0", "r/b", "r/c"}},
		{"r", true, []string{"r/a", "r/a.txt", "r/a/1", "r/a/2", "r/a/b", "r/a/b/3", "r/a0", "r/b", "r/c", "r/c/d", "r/c/d/e", "r/c/d/e/4"}},
		{"r/a", false, []string{"r/a/1", "r/a/2", "r/a/b"}},
		{"r/c", false, []string{"r/c/d"}},
		{"r/c", true, []string{"r/c/d", "r/c/d/e", "r/c/d/e/4"}},
		{"", false, []string{"r", "r.x", "ra"}},
		{"r/b", false, nil}, // a file lists nothing
	} {
		got, err := s.List(ctx, tc.dir, tc.recursive)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("List(%q, %v) = %q, %v; want %q", tc.dir, tc.recursive, got, err, tc.want)
		}
	}
	for _, d := range []string{"nope", "r/a/b/3/x", "r/c/d/e/4/5"} {
		if _, err := s.List(ctx, d, false); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("List(%q) = %v, want fs.ErrNotExist", d, err)
		}
	}
}

// TestListMany: listings that span several round trips (more entries
// than listBatch, and many subdirectories) are complete.
func TestListMany(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	n := listBatch*2 + 7
	var want []string
	for i := range n {
		k := fmt.Sprintf("p/%05d", i)
		if i%3 == 0 {
			k += "/x"
		}
		if err := s.Store(ctx, k, nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("p/%05d", i))
	}
	got, err := s.List(ctx, "p", false)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("List: %d keys, %v; want %d", len(got), err, len(want))
	}
	all, err := s.List(ctx, "p", true)
	if err != nil || len(all) != n+(n+2)/3 {
		t.Fatalf("recursive List: %d keys, %v; want %d", len(all), err, n+(n+2)/3)
	}
}

// TestDelete: deleting a directory deletes its subtree and nothing that
// merely shares its name's prefix; deleting a missing key is no error.
func TestDelete(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	tree(t, s)
	if err := s.Delete(ctx, "r/a"); err != nil {
		t.Fatal(err)
	}
	got, err := s.List(ctx, "", true)
	want := []string{"r", "r.x", "r/a.txt", "r/a0", "r/b", "r/c", "r/c/d", "r/c/d/e", "r/c/d/e/4", "ra", "ra/x"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("after Delete(r/a): %q, %v; want %q", got, err, want)
	}
	if err := s.Delete(ctx, "r/b"); err != nil || s.Exists(ctx, "r/b") {
		t.Errorf("Delete(file): %v, exists %v", err, s.Exists(ctx, "r/b"))
	}
	if err := s.Delete(ctx, "never/was"); err != nil {
		t.Errorf("Delete(missing) = %v", err)
	}
	if err := s.Delete(ctx, "r"); err != nil || s.Exists(ctx, "r") || !s.Exists(ctx, "r.x") || !s.Exists(ctx, "ra/x") {
		t.Errorf("Delete(r): %v", err)
	}
}

// TestPrefixes: two storages with different prefixes on one server see
// nothing of each other.
func TestPrefixes(t *testing.T) {
	srv := redistest.Start(t)
	a, b := New(srv.Client(t), Options{Prefix: "one"}), New(srv.Client(t), Options{Prefix: "two"})
	ctx := context.Background()
	if err := a.Store(ctx, "k", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if b.Exists(ctx, "k") {
		t.Error("a key of prefix one is visible under prefix two")
	}
	if err := b.Delete(ctx, ""); err != nil || !a.Exists(ctx, "k") {
		t.Errorf("deleting everything under prefix two: %v; prefix one's key exists: %v", err, a.Exists(ctx, "k"))
	}
}

// TestConcurrentStores: concurrent writers of one key leave one of their
// values whole, and writers of distinct keys all land in the index.
func TestConcurrentStores(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	var wg sync.WaitGroup
	vals := map[string]bool{}
	for i := range 16 {
		v := strings.Repeat(string(rune('a'+i)), 100_000)
		vals[v] = true
		wg.Go(func() {
			if err := s.Store(ctx, "same", []byte(v)); err != nil {
				t.Error(err)
			}
			if err := s.Store(ctx, fmt.Sprintf("many/%02d", i), []byte(v)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Load(ctx, "same")
	if err != nil || !vals[string(got)] {
		t.Errorf("after concurrent stores: %d bytes, %v: not one writer's value", len(got), err)
	}
	if ks, err := s.List(ctx, "many", false); err != nil || len(ks) != 16 {
		t.Errorf("List(many) = %d keys, %v", len(ks), err)
	}
}

// TestRestart: with the append-only file, every value and the index
// survive a restart of redis-server; while it is down, every method
// returns an error (Exists false), none panics or hangs past ctx.
func TestRestart(t *testing.T) {
	s, srv := newStorage(t, Options{LockTTL: time.Second})
	ctx := context.Background()
	tree(t, s)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Store(ctx2, "x", []byte("y")); err == nil {
		t.Error("Store succeeded while Redis is down")
	}
	if _, err := s.Load(ctx2, "r/b"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load while Redis is down = %v, want an error other than fs.ErrNotExist", err)
	}
	if _, err := s.List(ctx2, "r", true); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("List while Redis is down = %v", err)
	}
	if _, err := s.Stat(ctx2, "r/b"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat while Redis is down = %v", err)
	}
	if err := s.Delete(ctx2, "r/b"); err == nil {
		t.Error("Delete succeeded while Redis is down")
	}
	if s.Exists(ctx2, "r/b") {
		t.Error("Exists is true while Redis is down")
	}
	if err := s.Lock(ctx2, "l"); err == nil {
		t.Error("Lock succeeded while Redis is down")
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitUp(t, s)
	got, err := s.List(ctx, "", true)
	if err != nil || len(got) != 16 {
		t.Errorf("after the restart List = %q, %v", got, err)
	}
	if v, err := s.Load(ctx, "r/a/b/3"); err != nil || string(v) != "r/a/b/3" {
		t.Errorf("after the restart Load = %q, %v", v, err)
	}
	if err := s.Store(ctx, "x", []byte("y")); err != nil {
		t.Errorf("Store after the restart: %v", err)
	}
}

// waitUp waits until s reaches Redis again: the client, after failing to
// dial, tries again in the background about once a second.
func waitUp(t *testing.T, s *Storage) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s.rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the storage does not reach the restarted redis-server")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCompareAndSwap: a value is replaced only while the key holds the
// old one (nil: while it holds nothing), the new one listed as Store
// lists it; of writers swapping from one value at once, one wins.
func TestCompareAndSwap(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		old, value string
		absent     bool
		want       bool
		holds      string
	}{
		{absent: true, value: "a", want: true, holds: "a"},
		{absent: true, value: "b", want: false, holds: "a"},
		{old: "x", value: "b", want: false, holds: "a"},
		{old: "a", value: "b", want: true, holds: "b"},
		{old: "", value: "c", want: false, holds: "b"},
	} {
		var old []byte
		if !tc.absent {
			old = []byte(tc.old)
		}
		ok, err := s.CompareAndSwap(ctx, "g/current", old, []byte(tc.value))
		if err != nil || ok != tc.want {
			t.Fatalf("swap %q→%q: %v, %v; want %v", tc.old, tc.value, ok, err, tc.want)
		}
		if v, _ := s.Load(ctx, "g/current"); string(v) != tc.holds {
			t.Fatalf("after swap %q→%q: holds %q, want %q", tc.old, tc.value, v, tc.holds)
		}
	}
	if keys, err := s.List(ctx, "g", false); err != nil || !slices.Equal(keys, []string{"g/current"}) {
		t.Fatalf("listing: %v, %v", keys, err)
	}
	var wins sync.WaitGroup
	won := make(chan string, 8)
	for i := range 8 {
		wins.Go(func() {
			v := fmt.Sprint("w", i)
			if ok, err := s.CompareAndSwap(ctx, "g/current", []byte("b"), []byte(v)); err == nil && ok {
				won <- v
			}
		})
	}
	wins.Wait()
	close(won)
	if n := len(won); n != 1 {
		t.Fatalf("%d writers swapped from one value, want 1", n)
	}
}

// TestLoadLimited: a value within the limit is returned whole; a larger
// one is not, only its size; a missing key is fs.ErrNotExist.
func TestLoadLimited(t *testing.T) {
	s, _ := newStorage(t, Options{})
	ctx := context.Background()
	for _, v := range []string{"", "12345"} {
		if err := s.Store(ctx, "k", []byte(v)); err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int64{0, 4, 5, 6} {
			got, size, err := s.LoadLimited(ctx, "k", limit)
			over := int64(len(v)) > limit
			if err != nil || size != int64(len(v)) || (over && got != nil) || (!over && string(got) != v) {
				t.Errorf("value %q, limit %d: %q, %d, %v", v, limit, got, size, err)
			}
		}
	}
	if _, _, err := s.LoadLimited(ctx, "nope", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing key: %v", err)
	}
}
