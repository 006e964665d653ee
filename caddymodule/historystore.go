package caddymodule

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/history"
)

// newHistoryStore returns the serve history of the handler named name in
// Caddy's storage st (keys under lazarus/NAME/history/, docs/FORMAT.md
// §14.1): what the scheduled audit gives recover.Status to tell which
// generation an archive's capture holds from its digest alone. (In a
// file system storage it is also a directory `lazarus status --history`
// reads.)
func newHistoryStore(st certmagic.Storage, name string) *historyStore {
	return &historyStore{bundleStore{st: st, prefix: "lazarus/" + name + "/history/"}}
}

// historyStore is a history.Store over the storage below a bundleStore's
// prefix (the same prefixed, size-limited reads the generations use).
type historyStore struct{ b bundleStore }

// Put stores value at key; certmagic storages replace a value whole.
func (s *historyStore) Put(ctx context.Context, key string, value []byte) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	return s.b.st.Store(ctx, k, value)
}

// Get loads the value at key, refusing one over history.MaxValueBytes.
func (s *historyStore) Get(ctx context.Context, key string) ([]byte, error) {
	if _, err := s.key(key); err != nil {
		return nil, err
	}
	return s.b.load(ctx, key, history.MaxValueBytes)
}

// List returns the keys directly under dir, whether the storage lists
// recursively or not.
func (s *historyStore) List(ctx context.Context, dir string) ([]string, error) {
	k, err := s.key(dir)
	if err != nil {
		return nil, err
	}
	keys, err := s.b.st.List(ctx, k, false)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(keys))
	for _, full := range keys {
		rest, ok := strings.CutPrefix(full, k+"/")
		if !ok || rest == "" {
			continue
		}
		name, _, _ := strings.Cut(rest, "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, dir+"/"+name)
		}
	}
	return out, nil
}

// exists reports whether there is a value at key.
func (s *historyStore) exists(ctx context.Context, key string) bool {
	k, err := s.key(key)
	return err == nil && s.b.st.Exists(ctx, k)
}

// delete removes the value at key (pruning old versions).
func (s *historyStore) delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	return s.b.st.Delete(ctx, k)
}

// stat returns the storage's information on the value at key.
func (s *historyStore) stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	k, err := s.key(key)
	if err != nil {
		return certmagic.KeyInfo{}, err
	}
	return s.b.st.Stat(ctx, k)
}

// key maps a history key to the storage's, refusing keys that leave the
// prefix.
func (s *historyStore) key(key string) (string, error) {
	if !fs.ValidPath(key) || key == "." {
		return "", fmt.Errorf("history key %q: %w", key, fs.ErrInvalid)
	}
	return s.b.prefix + key, nil
}
