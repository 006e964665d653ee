package erasure

import (
	"fmt"
	"sync"

	"github.com/klauspost/reedsolomon"
)

// Building a klauspost codec derives and inverts a k×k matrix in pure Go:
// about 50 ms for k = 200 and 100 ms for k = 255. Codecs are therefore
// shared between Coders of the same shape through a small cache.
const (
	// maxCodecs bounds how many (k, m) shapes keep a codec.
	maxCodecs = 4

	// maxPatterns bounds klauspost's inversion cache, which keeps one
	// inverted k×k matrix per erasure pattern forever: once a codec has
	// seen this many distinct patterns, the next new one gets a fresh codec.
	// A rebuild costs about two inversions, and each new pattern costs one
	// anyway. Together the limits cap the caches at about
	// maxCodecs·maxPatterns·256² bytes (8 MiB).
	maxPatterns = 32
)

// pattern is the set of missing shards of a stripe, one bit per shard.
type pattern [MaxShards / 64]uint64

// codecEntry is one cached codec.
type codecEntry struct {
	k, m     int
	rs       reedsolomon.Encoder
	patterns map[pattern]bool // erasure patterns rs has decoded
}

// codecs holds the cached codecs, least recently used first.
var codecs struct {
	sync.Mutex
	entries []*codecEntry
}

// sharedCodec returns the codec for k data and m ≥ 1 parity shards,
// building it if needed. A reconstruction passes its erasure pattern,
// encoding passes nil. Callers may use the codec concurrently.
func sharedCodec(k, m int, missing *pattern) (reedsolomon.Encoder, error) {
	codecs.Lock()
	defer codecs.Unlock()
	e := takeCodec(k, m)
	if e == nil || missing != nil && !e.patterns[*missing] && len(e.patterns) >= maxPatterns {
		rs, err := newCodec(k, m)
		if err != nil {
			return nil, err
		}
		e = &codecEntry{k: k, m: m, rs: rs, patterns: make(map[pattern]bool)}
	}
	if missing != nil {
		e.patterns[*missing] = true
	}
	codecs.entries = append(codecs.entries, e)
	if len(codecs.entries) > maxCodecs {
		codecs.entries = codecs.entries[1:]
	}
	return e.rs, nil
}

// takeCodec removes the entry for (k, m) from the cache and returns it, or
// nil. The caller holds the lock.
func takeCodec(k, m int) *codecEntry {
	for i, e := range codecs.entries {
		if e.k == k && e.m == m {
			codecs.entries = append(codecs.entries[:i], codecs.entries[i+1:]...)
			return e
		}
	}
	return nil
}

// newCodec returns klauspost's codec with its default options, which select
// the Vandermonde-derived matrix that CodeRS8 names. Options that change
// parity must never be added here.
func newCodec(k, m int) (reedsolomon.Encoder, error) {
	rs, err := reedsolomon.New(k, m)
	if err != nil {
		return nil, fmt.Errorf("creating rs8 codec k=%d m=%d: %w", k, m, err)
	}
	return rs, nil
}
