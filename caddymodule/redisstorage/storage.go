package redisstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Storage is a certmagic.Storage (and certmagic.Locker, TryLocker) kept
// in one Redis database. Every value is a hash PREFIX:v:KEY holding the
// value and its modification time, written in one script with the key's
// entry in the sorted set PREFIX:index (all members scored 0, so that
// listing a directory is a lexicographic range query). Locks are the
// strings PREFIX:lock:NAME (lock.go). It is safe for concurrent use.
type Storage struct {
	rdb     redis.UniversalClient
	prefix  string
	lockTTL time.Duration
	logger  *zap.Logger

	mu   sync.Mutex
	held map[string]*heldLock // locks this Storage holds, by name
}

// Options configure a Storage.
type Options struct {
	// Prefix starts every Redis key the storage uses; defaults to
	// DefaultKeyPrefix. It must not contain ':' (Module.Validate refuses
	// it): prefix "a" would otherwise share keys with prefix "a:v".
	Prefix string
	// LockTTL is how long a lock outlives its holder's last refresh;
	// defaults to DefaultLockTTL, and is at least MinLockTTL.
	LockTTL time.Duration
	// Logger receives warnings (a lock lost to expiry); defaults to none.
	Logger *zap.Logger
}

// Defaults of Options and of the Caddy module's settings, and the least
// LockTTL (a lock is refreshed every third of it).
const (
	DefaultKeyPrefix   = "caddy"
	DefaultLockTTL     = 10 * time.Second
	DefaultDialTimeout = 5 * time.Second
	MinLockTTL         = 100 * time.Millisecond
)

// New returns a Storage using rdb. The client is not closed by the
// Storage; closing it is the caller's business.
func New(rdb redis.UniversalClient, o Options) *Storage {
	if o.Prefix == "" {
		o.Prefix = DefaultKeyPrefix
	}
	if o.LockTTL <= 0 {
		o.LockTTL = DefaultLockTTL
	}
	o.LockTTL = max(o.LockTTL, MinLockTTL)
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &Storage{rdb: rdb, prefix: o.Prefix, lockTTL: o.LockTTL, logger: o.Logger, held: map[string]*heldLock{}}
}

func (s *Storage) indexKey() string           { return s.prefix + ":index" }
func (s *Storage) valueKey(key string) string { return s.prefix + ":v:" + key }

// clean normalises a storage key: no leading or trailing slashes.
func clean(key string) string { return strings.Trim(key, "/") }

// under returns the lexicographic range, for ZRANGEBYLEX, of the keys
// below dir ("" is the root: every key).
func under(dir string) (lo, hi string) {
	if dir == "" {
		return "-", "+"
	}
	return "[" + dir + "/", "(" + dir + "0" // '0' is the byte after '/'
}

// storeScript writes a value, its time (the server's clock, so that all
// instances agree) and its index entry at once.
var storeScript = redis.NewScript(`
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'm', t[1] .. string.format('%06d', tonumber(t[2])))
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1`)

// Store puts value at key.
func (s *Storage) Store(ctx context.Context, key string, value []byte) error {
	key = clean(key)
	if key == "" {
		return errors.New("redis storage: storing an empty key")
	}
	if err := storeScript.Run(ctx, s.rdb, []string{s.valueKey(key), s.indexKey()}, value, key).Err(); err != nil {
		return fmt.Errorf("redis storage: storing %q: %w", key, err)
	}
	return nil
}

// swapScript writes a value as storeScript does, only if the key holds
// ARGV[3] (ARGV[4] "1"), or holds nothing (ARGV[4] "0").
var swapScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'v')
if ARGV[4] == '0' then
	if cur then return 0 end
elseif cur ~= ARGV[3] then
	return 0
end
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'm', t[1] .. string.format('%06d', tonumber(t[2])))
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1`)

// CompareAndSwap puts value at key only if key holds old (nil: if key
// holds nothing), in one step no other writer can come between, and
// reports whether it did.
func (s *Storage) CompareAndSwap(ctx context.Context, key string, old, value []byte) (bool, error) {
	key = clean(key)
	if key == "" {
		return false, errors.New("redis storage: storing an empty key")
	}
	has := "1"
	if old == nil {
		has = "0"
	}
	n, err := swapScript.Run(ctx, s.rdb, []string{s.valueKey(key), s.indexKey()}, value, key, old, has).Int()
	if err != nil {
		return false, fmt.Errorf("redis storage: swapping %q: %w", key, err)
	}
	return n == 1, nil
}

// Load returns the value at key, fs.ErrNotExist if there is none.
func (s *Storage) Load(ctx context.Context, key string) ([]byte, error) {
	key = clean(key)
	v, err := s.rdb.HGet(ctx, s.valueKey(key), "v").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redis storage: %q: %w", key, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("redis storage: loading %q: %w", key, err)
	}
	return v, nil
}

// loadLimitedScript returns a value's size and, if it is at most
// ARGV[1] bytes, the value; {-1} if there is none.
var loadLimitedScript = redis.NewScript(`
local v = redis.call('HSTRLEN', KEYS[1], 'v')
if v == 0 and redis.call('HEXISTS', KEYS[1], 'v') == 0 then return {-1} end
if v > tonumber(ARGV[1]) then return {v} end
return {v, redis.call('HGET', KEYS[1], 'v')}`)

// LoadLimited returns the value at key if it is at most limit bytes; a
// larger one is neither sent nor read: then the value is nil and size
// says how large it is. fs.ErrNotExist if there is none.
func (s *Storage) LoadLimited(ctx context.Context, key string, limit int64) (value []byte, size int64, err error) {
	key = clean(key)
	r, err := loadLimitedScript.Run(ctx, s.rdb, []string{s.valueKey(key)}, limit).Slice()
	if err != nil {
		return nil, 0, fmt.Errorf("redis storage: loading %q: %w", key, err)
	}
	n, _ := r[0].(int64)
	switch {
	case n < 0:
		return nil, 0, fmt.Errorf("redis storage: %q: %w", key, fs.ErrNotExist)
	case len(r) < 2:
		return nil, n, nil
	}
	v, _ := r[1].(string)
	return []byte(v), n, nil
}

// deleteScript removes key and every key below it, values and index
// entries, in one step.
var deleteScript = redis.NewScript(`
local idx, vp, key = KEYS[1], ARGV[1], ARGV[2]
local n = 0
if redis.call('ZSCORE', idx, key) then
	redis.call('DEL', vp .. key)
	redis.call('ZREM', idx, key)
	n = 1
end
local lo, hi = '[' .. key .. '/', '(' .. key .. '0'
if key == '' then lo, hi = '-', '+' end
while true do
	local ks = redis.call('ZRANGEBYLEX', idx, lo, hi, 'LIMIT', 0, 256)
	if #ks == 0 then break end
	for i, k in ipairs(ks) do redis.call('DEL', vp .. k) end
	redis.call('ZREM', idx, unpack(ks))
	n = n + #ks
end
return n`)

// Delete removes key and, if it is a directory, every key below it. A
// missing key is not an error.
func (s *Storage) Delete(ctx context.Context, key string) error {
	key = clean(key)
	if err := deleteScript.Run(ctx, s.rdb, []string{s.indexKey()}, s.prefix+":v:", key).Err(); err != nil {
		return fmt.Errorf("redis storage: deleting %q: %w", key, err)
	}
	return nil
}

// Exists reports whether key is a file or a directory; false also when
// Redis cannot be asked.
func (s *Storage) Exists(ctx context.Context, key string) bool {
	_, err := s.Stat(ctx, key)
	return err == nil
}

// Stat describes key: a file (its size and modification time) or a
// directory (a prefix of files), fs.ErrNotExist if neither.
func (s *Storage) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	key = clean(key)
	var meta *redis.SliceCmd
	var size *redis.IntCmd
	var below *redis.StringSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		meta = p.HMGet(ctx, s.valueKey(key), "m")
		size = p.HStrLen(ctx, s.valueKey(key), "v")
		lo, hi := under(key)
		below = p.ZRangeByLex(ctx, s.indexKey(), &redis.ZRangeBy{Min: lo, Max: hi, Count: 1})
		return nil
	})
	if err != nil {
		return certmagic.KeyInfo{}, fmt.Errorf("redis storage: stat %q: %w", key, err)
	}
	if m, _ := meta.Val()[0].(string); m != "" {
		return certmagic.KeyInfo{Key: key, Modified: parseMicros(m), Size: size.Val(), IsTerminal: true}, nil
	}
	if len(below.Val()) > 0 {
		return certmagic.KeyInfo{Key: key, IsTerminal: false}, nil
	}
	return certmagic.KeyInfo{}, fmt.Errorf("redis storage: %q: %w", key, fs.ErrNotExist)
}

// parseMicros reads the microseconds since the epoch storeScript wrote.
func parseMicros(s string) time.Time {
	us, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMicro(us)
}

// listBatch is how many index entries one List round trip reads.
const listBatch = 1000

// List returns the keys below dir: with recursive, every file and
// directory at any depth; without, the files and directories directly
// in it. Keys are full paths (dir/name), sorted. A dir that is neither
// a directory nor a file is fs.ErrNotExist; a file lists nothing.
func (s *Storage) List(ctx context.Context, dir string, recursive bool) ([]string, error) {
	dir = clean(dir)
	base := dir + "/"
	if dir == "" {
		base = ""
	}
	var out []string
	var err error
	if recursive {
		out, err = s.listAll(ctx, dir, base)
	} else {
		out, err = s.listChildren(ctx, dir, base)
	}
	if err != nil {
		return nil, fmt.Errorf("redis storage: listing %q: %w", dir, err)
	}
	if len(out) == 0 {
		if _, err := s.Stat(ctx, dir); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// listAll returns every key below dir and every directory between.
func (s *Storage) listAll(ctx context.Context, dir, base string) ([]string, error) {
	lo, hi := under(dir)
	var out []string
	seen := map[string]bool{}
	for {
		ks, err := s.rdb.ZRangeByLex(ctx, s.indexKey(), &redis.ZRangeBy{Min: lo, Max: hi, Count: listBatch}).Result()
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			rest := strings.TrimPrefix(k, base)
			for i := range len(rest) {
				if d := base + rest[:i]; rest[i] == '/' && !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
			out = append(out, k)
		}
		if len(ks) < listBatch {
			return out, nil
		}
		lo = "(" + ks[len(ks)-1]
	}
}

// listChildren returns the files and directories directly in dir,
// reading each child directory's first key only: the next query starts
// past its subtree.
func (s *Storage) listChildren(ctx context.Context, dir, base string) ([]string, error) {
	lo, hi := under(dir)
	var out []string
	for {
		ks, err := s.rdb.ZRangeByLex(ctx, s.indexKey(), &redis.ZRangeBy{Min: lo, Max: hi, Count: listBatch}).Result()
		if err != nil {
			return nil, err
		}
		if len(ks) == 0 {
			return out, nil
		}
		next, full := "", len(ks) == listBatch
		for _, k := range ks {
			name, _, isDir := strings.Cut(strings.TrimPrefix(k, base), "/")
			if !isDir {
				out = append(out, k)
				continue
			}
			out = append(out, base+name)
			next = "[" + base + name + "0" // '0' follows '/': past name/…
			break
		}
		switch {
		case next != "":
			lo = next
		case full:
			lo = "(" + ks[len(ks)-1]
		default:
			return out, nil
		}
	}
}
