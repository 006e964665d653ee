package history

import (
	"context"
	"io/fs"
	"strings"
	"sync"
)

// memStore is a Store in memory, listing like Caddy's storages do: the
// keys and "directories" directly under a prefix.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) Put(_ context.Context, key string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), v...)
	return nil
}

func (s *memStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return v, nil
}

func (s *memStore) List(_ context.Context, dir string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for k := range s.m {
		rest, ok := strings.CutPrefix(k, dir+"/")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, dir+"/"+name)
		}
	}
	if len(out) == 0 {
		return nil, fs.ErrNotExist
	}
	return out, nil
}

// countingStore counts writes.
type countingStore struct {
	*memStore
	puts int
}

func (s *countingStore) Put(ctx context.Context, key string, v []byte) error {
	s.puts++
	return s.memStore.Put(ctx, key, v)
}
