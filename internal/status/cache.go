package status

import (
	"container/list"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
)

// Bounds on the status cache (variables for tests): an entry larger than
// maxCacheEntry is not written (the capture is fetched again next time);
// the entries together stay within maxCacheBytes and maxCacheFiles, the
// least recently used deleted first; an entry not used for maxCacheAge
// is deleted when the cache is opened.
var (
	maxCacheEntry int64 = 8 << 20
	maxCacheBytes int64 = 1 << 30
	maxCacheFiles       = 100_000
	maxCacheAge         = 90 * 24 * time.Hour
)

// cacheDir is the cache's directory in the state directory.
const cacheDir = "status"

// statusCache keeps scans by capture key in the state directory, for
// one key's scope (see statusVerifier), within the bounds above.
type statusCache struct {
	root  *os.Root
	scope string
	total int64                    // bytes of the entries in lru
	lru   *list.List               // of *cacheFile, least recently used first
	files map[string]*list.Element // by name
}

// cacheFile is one entry's name and size.
type cacheFile struct {
	name string
	size int64
}

// openStatusCache opens (creating) dir, deletes the entries not used for
// maxCacheAge and, if the rest exceed the bounds, the least recently
// used; nil without a dir.
func openStatusCache(dir, scope string) (*statusCache, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	c := &statusCache{root: root, scope: scope, lru: list.New(), files: map[string]*list.Element{}}
	c.load(time.Now())
	c.evict(0, 0)
	return c, nil
}

// load indexes the entries by last use (modification time), deleting
// those older than maxCacheAge and temporary files a stopped run left.
func (c *statusCache) load(now time.Time) {
	d, err := c.root.Open(cacheDir)
	if err != nil {
		return
	}
	entries, _ := d.ReadDir(-1)
	d.Close()
	type found struct {
		cacheFile
		at time.Time
	}
	var keep []found
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		name := cacheDir + "/" + e.Name()
		switch {
		case strings.Contains(e.Name(), ".tmp-"): // rootfile.WriteAtomic's, if an hour old
			if now.Sub(info.ModTime()) > time.Hour {
				c.root.Remove(name)
			}
		case !strings.HasSuffix(e.Name(), ".json"):
		case now.Sub(info.ModTime()) > maxCacheAge:
			c.root.Remove(name)
		default:
			keep = append(keep, found{cacheFile{name, info.Size()}, info.ModTime()})
		}
	}
	slices.SortFunc(keep, func(a, b found) int { return a.at.Compare(b.at) })
	for _, f := range keep {
		c.add(f.cacheFile)
	}
}

// add indexes an entry as the most recently used.
func (c *statusCache) add(f cacheFile) {
	c.files[f.name] = c.lru.PushBack(&f)
	c.total += f.size
}

// drop forgets an entry and deletes it.
func (c *statusCache) drop(e *list.Element) {
	f := c.lru.Remove(e).(*cacheFile)
	delete(c.files, f.name)
	c.total -= f.size
	c.root.Remove(f.name)
}

// evict deletes the least recently used entries until n more entries of
// room bytes in all fit.
func (c *statusCache) evict(n int, room int64) {
	for c.lru.Len() > 0 && (c.total+room > maxCacheBytes || c.lru.Len()+n > maxCacheFiles) {
		c.drop(c.lru.Front())
	}
}

func (c *statusCache) close() {
	if c != nil {
		c.root.Close()
	}
}

func (c *statusCache) name(key string) string {
	return cacheDir + "/" + rootfile.KeyName(c.scope+"\x00"+key) + ".json"
}

// get returns the cached scan of a capture key, verified again with v:
// an entry whose manifests or blocks do not verify (another key, damage)
// is ignored and the capture fetched again. An entry read is marked used
// (its modification time), so it is the last to go.
func (c *statusCache) get(key string, v *keys.Verifier) (*statusScan, bool) {
	if c == nil {
		return nil, false
	}
	name := c.name(key)
	raw, err := rootfile.ReadRegular(c.root, name, maxCacheEntry)
	if err != nil {
		return nil, false
	}
	var sc statusScan
	if json.Unmarshal(raw, &sc) != nil || sc.check(v) != nil {
		return nil, false
	}
	now := time.Now()
	c.root.Chtimes(name, now, now)
	if e := c.files[name]; e != nil {
		c.lru.MoveToBack(e)
	}
	return &sc, true
}

// has reports whether the cache holds an entry for a capture key (a
// regular file; get still checks it).
func (c *statusCache) has(key string) bool {
	if c == nil {
		return false
	}
	info, err := c.root.Lstat(c.name(key))
	return err == nil && info.Mode().IsRegular()
}

// put caches a scan, making room by deleting the least recently used
// entries; best effort (a failed or skipped write costs a refetch). An
// entry over maxCacheEntry is not written.
func (c *statusCache) put(key string, sc *statusScan) {
	if c == nil {
		return
	}
	raw, err := json.Marshal(sc)
	n := int64(len(raw))
	if err != nil || n > maxCacheEntry || n > maxCacheBytes {
		return
	}
	name := c.name(key)
	if e := c.files[name]; e != nil {
		c.drop(e)
	}
	c.evict(1, n)
	if rootfile.WriteAtomic(c.root, name, raw, 0o600) == nil {
		c.add(cacheFile{name, n})
	}
}
