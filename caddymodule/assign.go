package caddymodule

import (
	"crypto/sha256"
	"encoding/binary"
)

// assign returns the indices of the blocks the page at key carries: the
// plan's list for it, else a deterministic pick from all blocks.
func (g *generation) assign(key string, budget int64) []int {
	if idx, ok := g.pages[key]; ok {
		return idx
	}
	return g.pick(key, budget)
}

// pick chooses blocks for a page the plan does not name. A SHA-256 of the
// generation id and key gives a start index and a stride coprime with the
// number of blocks; blocks are taken start, start+stride, … while their
// armored size fits budget, at least one and never one twice.
func (g *generation) pick(key string, budget int64) []int {
	n := uint64(len(g.blocks))
	h := sha256.Sum256([]byte(g.id + key))
	at := binary.BigEndian.Uint64(h[0:8]) % n
	stride := coprimeStride(binary.BigEndian.Uint64(h[8:16]), n)
	var idx []int
	used := int64(0)
	for range n {
		size := armoredSize(g.blocks[at].size)
		if len(idx) > 0 && used+size > budget {
			break
		}
		idx = append(idx, int(at))
		used += size
		at = (at + stride) % n
	}
	return idx
}

// coprimeStride returns a stride in [1, n) coprime with n derived from x,
// or 1 when n < 2.
func coprimeStride(x, n uint64) uint64 {
	if n < 3 {
		return 1
	}
	s := 1 + x%(n-1)
	for gcd(s, n) != 1 {
		s = s%(n-1) + 1
	}
	return s
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
