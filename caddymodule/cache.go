package caddymodule

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/lazarus-preserve/lazarus/internal/codec"
)

// defaultCacheBytes bounds the armored blocks kept in memory,
// defaultPageCacheBytes the finished pages and defaultInspectBytes what
// was found in inspected pages.
const (
	defaultCacheBytes     = 32 << 20
	defaultPageCacheBytes = 64 << 20
	defaultInspectBytes   = 8 << 20
)

// fifoCache is a map bounded by the bytes of its values (sizeOf); when
// full, the oldest entries go first. A value larger than the bound is not
// kept.
type fifoCache[K comparable, V any] struct {
	mu     sync.Mutex
	limit  int
	size   int
	sizeOf func(V) int
	m      map[K]V
	order  []K
}

func newFIFOCache[K comparable, V any](limit int, sizeOf func(V) int) *fifoCache[K, V] {
	return &fifoCache[K, V]{limit: limit, sizeOf: sizeOf, m: map[K]V{}}
}

// get returns a cached value.
func (c *fifoCache[K, V]) get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

// put keeps v under key, unless key is there already or v alone passes
// the bound.
func (c *fifoCache[K, V]) put(key K, v V) {
	n := c.sizeOf(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok || n > c.limit {
		return
	}
	for c.size+n > c.limit && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= c.sizeOf(c.m[old])
		delete(c.m, old)
	}
	c.m[key] = v
	c.order = append(c.order, key)
	c.size += n
}

// blockCache keeps armored blocks read from the bundle, and finished
// pages, bounded in bytes.
type blockCache struct {
	*fifoCache[string, []byte]
}

func newBlockCache(limit int) *blockCache {
	return &blockCache{newFIFOCache[string](limit, func(v []byte) int { return len(v) })}
}

// armored returns block i of g as a comment, reading it if not cached.
func (c *blockCache) armored(ctx context.Context, g *generation, i int) ([]byte, error) {
	b := g.blocks[i]
	key := g.id + "/" + b.ref.String()
	if v, ok := c.get(key); ok {
		return v, nil
	}
	raw, err := g.raw(ctx, i)
	if err != nil {
		return nil, err
	}
	v, err := codec.BlockComment(raw)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", b.ref, err)
	}
	c.put(key, v)
	return v, nil
}

// defaultChangeEntries bounds the paths changeCache remembers.
const defaultChangeEntries = 16384

// changeCache remembers, by request key, whether the module changed the
// page it last served there (see Handler.ServeHTTP): a request for a page
// it changes goes to the next handler as a plain GET at once, and a
// request for a path known to pass unchanged goes on as sent (its
// Accept-Encoding too), its 304, 412, 416 or 206 without another look.
// Keys are kept as hashes, so long URLs cost no more than short ones; when
// full it starts over.
type changeCache struct {
	mu    sync.Mutex
	limit int
	m     map[[16]byte]bool
}

func newChangeCache(limit int) *changeCache {
	return &changeCache{limit: limit, m: map[[16]byte]bool{}}
}

// keyHash is the first 16 bytes of SHA-256(key): how changeCache and
// linkSet keep request keys.
func keyHash(key string) [16]byte {
	h := sha256.Sum256([]byte(key))
	return [16]byte(h[:16])
}

// get returns what is known of key.
func (c *changeCache) get(key string) (changes, known bool) {
	k := keyHash(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	changes, known = c.m[k]
	return changes, known
}

func (c *changeCache) put(key string, changes bool) {
	k := keyHash(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok && old == changes {
		return
	}
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	c.m[k] = changes
}
