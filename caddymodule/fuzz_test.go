package caddymodule

import (
	"context"
	"io/fs"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
)

// FuzzUnmarshalCaddyfile: any input either fails or yields options that
// are positive when set.
func FuzzUnmarshalCaddyfile(f *testing.F) {
	f.Add("lazarus /b")
	f.Add("lazarus {\n bundle /b\n page_budget 256KiB\n max_buffer 1\n query_carriers\n reload_interval 1s\n}")
	f.Fuzz(func(t *testing.T, in string) {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
			return
		}
		if h.PageBudget < 0 || h.MaxBuffer < 0 || h.ReloadInterval < 0 || h.MaxCrawlHold < 0 {
			t.Fatalf("%q gave %+v", in, &h)
		}
	})
}

// FuzzPrecondition: a request naming our ETag in If-None-Match always gets
// 304 unless If-Match/If-Unmodified-Since fail first (412).
func FuzzPrecondition(f *testing.F) {
	f.Add(`"a", W/"b"`, "Sat, 21 Nov 2026 10:00:00 GMT", "")
	f.Fuzz(func(t *testing.T, list, ims, im string) {
		const etag = `"lz-0123"`
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("If-None-Match", list+", "+etag)
		r.Header.Set("If-Modified-Since", ims)
		r.Header.Set("If-Match", im)
		got := precondition(r, etag, time.Unix(1e9, 0))
		if got != 304 && !(got == 412 && strings.TrimSpace(im) != "") {
			t.Fatalf("list %q im %q: %d", list, im, got)
		}
	})
}

func BenchmarkServeHTTP_Planned(b *testing.B) {
	f := newFixture(b)
	h := &Handler{Bundle: f.bundle, storage: &certmagic.FileStorage{Path: b.TempDir()}}
	if err := h.setup(); err != nil {
		b.Fatal(err)
	}
	up := &page{body: "<html><body>" + strings.Repeat("<p>text</p>", 2000) + "</body></html>"}
	b.SetBytes(int64(len(up.body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", "/a", nil)
		if err := h.ServeHTTP(httptest.NewRecorder(), r, up); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPlacementStorage: whatever the shared storage holds as placement
// state or a page record, assign returns an assignment within the
// generation or an error, never panics.
func FuzzPlacementStorage(f *testing.F) {
	f.Add([]byte(`{"counts":[0,0,0,0],"records":0}`), []byte(`{"path":"/p","blocks":["app/0/1"],"since":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"counts":[9,9,9,9],"full":true,"manifest":["/p"]}`), []byte(`{"path":"/p","blocks":["app/9/9"]}`))
	f.Add([]byte(`{"counts":[0,0,0,0],"unverified_counts":[1,0,0,0],"unverified_records":1,"site":"https://example.org/"}`),
		[]byte(`{"path":"/p","blocks":["app/0/0"],"unverified":true}`))
	f.Add([]byte(`{"counts":[0,0,0,0],"unverified_counts":[1]}`), []byte(`{"path":"/p","blocks":[],"unverified":true}`))
	f.Fuzz(func(t *testing.T, state, record []byte) {
		g := testGeneration(1, 4, 100)
		st := newMemStorage()
		p := newTestPlacer(st, g, 1<<20, 3)
		st.m[p.prefix+"state"] = state
		st.m[p.recordKey("/p")] = record
		for _, key := range []string{"/p", "/q"} {
			a, err := p.assign(context.Background(), place(key, key == "/p"))
			if err != nil {
				continue
			}
			for _, i := range a.blocks {
				if i < 0 || i >= len(g.blocks) {
					t.Fatalf("%s: block index %d", key, i)
				}
			}
		}
	})
}

// memStorage is a certmagic.Storage in memory, for tests.
type memStorage struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemStorage() *memStorage { return &memStorage{m: map[string][]byte{}} }

func (s *memStorage) Lock(context.Context, string) error   { return nil }
func (s *memStorage) Unlock(context.Context, string) error { return nil }

func (s *memStorage) Store(_ context.Context, key string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = slices.Clone(v)
	return nil
}

func (s *memStorage) Load(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return slices.Clone(v), nil
}

func (s *memStorage) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

func (s *memStorage) Exists(_ context.Context, key string) bool {
	_, err := s.Load(context.Background(), key)
	return err == nil
}

func (s *memStorage) List(_ context.Context, prefix string, _ bool) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix+"/") {
			out = append(out, k)
		}
	}
	return out, nil
}

func (s *memStorage) Stat(_ context.Context, key string) (certmagic.KeyInfo, error) {
	v, err := s.Load(context.Background(), key)
	return certmagic.KeyInfo{Key: key, Size: int64(len(v)), IsTerminal: true}, err
}
