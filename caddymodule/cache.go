package caddymodule

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/site"
)

// defaultCacheBytes bounds the armored blocks kept in memory, and
// defaultPageCacheBytes the finished pages.
const (
	defaultCacheBytes     = 32 << 20
	defaultPageCacheBytes = 64 << 20
)

// blockCache keeps armored blocks read from the bundle, bounded in bytes;
// when full, the oldest entries go first.
type blockCache struct {
	mu    sync.Mutex
	limit int
	size  int
	m     map[string][]byte
	order []string
}

func newBlockCache(limit int) *blockCache {
	return &blockCache{limit: limit, m: map[string][]byte{}}
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
	v, err := htmlblock.Armor(htmlblock.KindBlock, raw)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", b.ref, err)
	}
	c.put(key, v)
	return v, nil
}

// get returns a cached value.
func (c *blockCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *blockCache) put(key string, v []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok || len(v) > c.limit {
		return
	}
	for c.size+len(v) > c.limit && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(c.m[old])
		delete(c.m, old)
	}
	c.m[key] = v
	c.order = append(c.order, key)
	c.size += len(v)
}

// defaultInspectEntries bounds the inspected pages remembered.
const defaultInspectEntries = 4096

// inspectCache remembers what site.Inspect found in page bodies, by their
// SHA-256; when full it starts over.
type inspectCache struct {
	mu    sync.Mutex
	limit int
	m     map[[sha256.Size]byte]site.Inspection
}

func newInspectCache(limit int) *inspectCache {
	return &inspectCache{limit: limit, m: map[[sha256.Size]byte]site.Inspection{}}
}

func (c *inspectCache) get(sum [sha256.Size]byte) (site.Inspection, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in, ok := c.m[sum]
	return in, ok
}

func (c *inspectCache) put(sum [sha256.Size]byte, in site.Inspection) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	c.m[sum] = in
}

// defaultChangeEntries bounds the paths changeCache remembers.
const defaultChangeEntries = 16384

// changeCache remembers, by request key, whether the module changed the
// page it last served there (see Handler.ServeHTTP): a request for a page
// it changes goes to the next handler as a plain GET at once, and an
// upstream 304, 412, 416 or 206 for a path known to pass unchanged goes
// on without another look.
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

func changeKey(key string) [16]byte {
	h := sha256.Sum256([]byte(key))
	return [16]byte(h[:16])
}

// get returns what is known of key.
func (c *changeCache) get(key string) (changes, known bool) {
	k := changeKey(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	changes, known = c.m[k]
	return changes, known
}

func (c *changeCache) put(key string, changes bool) {
	k := changeKey(key)
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
