package status

import "time"

// SetMaxStreamedBytes lowers the bound on what Status holds from local
// sources, for a test; the returned func restores it.
func SetMaxStreamedBytes(n int64) (restore func()) {
	old := maxStreamedBytes
	maxStreamedBytes = n
	return func() { maxStreamedBytes = old }
}

// SetCacheLimits sets the status cache's bounds per entry, in all and on
// the age of unused entries (0 keeps a bound as it is), for a test; the
// returned func restores them.
func SetCacheLimits(entry, total int64, age time.Duration) (restore func()) {
	oe, ot, oa := maxCacheEntry, maxCacheBytes, maxCacheAge
	if entry > 0 {
		maxCacheEntry = entry
	}
	if total > 0 {
		maxCacheBytes = total
	}
	if age > 0 {
		maxCacheAge = age
	}
	return func() { maxCacheEntry, maxCacheBytes, maxCacheAge = oe, ot, oa }
}
