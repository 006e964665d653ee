package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"sync"
)

// defaultBodySumBytes bounds the page bodies bodySums keeps.
const defaultBodySumBytes = 32 << 20

// bodySums gives the SHA-256 of the page the next handler made for a
// request key, remembering per key the last body and its digest: a page
// served again unchanged, the usual case, costs a comparison of its bytes
// (a few microseconds for 40 KB) instead of hashing them again (several
// times that; it was the largest single cost of a request). The answer is
// exact: a body is reused only when byte-identical. Bounded by the bytes
// of the bodies and keys it keeps; when full, the oldest keys go first.
type bodySums struct {
	mu    sync.Mutex
	limit int
	size  int
	m     map[string]*bodySum
	order []string // keys, oldest first
}

// bodySum is one key's last body and its digest.
type bodySum struct {
	body []byte
	sum  [sha256.Size]byte
}

func newBodySums(limit int) *bodySums {
	return &bodySums{limit: limit, m: map[string]*bodySum{}}
}

// sum returns SHA-256(body) for the page at key. A nil bodySums hashes.
func (s *bodySums) sum(key string, body []byte) [sha256.Size]byte {
	if s == nil {
		return sha256.Sum256(body)
	}
	s.mu.Lock()
	if e, ok := s.m[key]; ok && bytes.Equal(e.body, body) {
		sum := e.sum
		s.mu.Unlock()
		return sum
	}
	s.mu.Unlock()
	sum := sha256.Sum256(body)
	s.put(key, body, sum)
	return sum
}

// put keeps a copy of body and its digest under key, replacing what the
// key had; a body larger than the bound alone is not kept.
func (s *bodySums) put(key string, body []byte, sum [sha256.Size]byte) {
	n := len(key) + len(body)
	if n > s.limit {
		return
	}
	e := &bodySum{body: bytes.Clone(body), sum: sum}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[key]; ok {
		s.size += len(body) - len(old.body)
		s.m[key] = e
	} else {
		s.m[key] = e
		s.order = append(s.order, key)
		s.size += n
	}
	for s.size > s.limit && len(s.order) > 0 {
		k := s.order[0]
		s.order = s.order[1:]
		if old, ok := s.m[k]; ok {
			s.size -= len(k) + len(old.body)
			delete(s.m, k)
		}
	}
}
