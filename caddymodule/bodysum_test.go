package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"
)

// TestBodySumsExact: the digest is always SHA-256 of the body given, for
// a page served again, changed in one byte, changed back, or of another
// length; and the kept bytes stay within the bound.
func TestBodySumsExact(t *testing.T) {
	s := newBodySums(10_000)
	page := bytes.Repeat([]byte("<p>lorem ipsum</p>"), 100) // 1,800 bytes
	check := func(key string, body []byte) {
		t.Helper()
		if got, want := s.sum(key, body), sha256.Sum256(body); got != want {
			t.Fatalf("%s: digest %x, want %x", key, got[:4], want[:4])
		}
	}
	check("/", page)
	check("/", page)
	changed := bytes.Clone(page)
	changed[900] ^= 1
	check("/", changed)
	check("/", page)
	check("/", page[:len(page)-1])
	check("/other", page)
	// The caller's buffer is reused after the call: what was kept is a copy.
	buf := bytes.Clone(page)
	check("/buf", buf)
	buf[0] = 'X'
	check("/buf", buf)
	check("/buf", page)
	for i := range 50 {
		check(fmt.Sprintf("/p%d", i), page)
		if s.size > s.limit {
			t.Fatalf("after %d pages: %d bytes kept, bound %d", i+1, s.size, s.limit)
		}
	}
	check("/big", bytes.Repeat(page, 10)) // larger than the bound: hashed, not kept
	if _, ok := s.m["/big"]; ok {
		t.Fatal("a body larger than the bound was kept")
	}
	var nilSums *bodySums
	if got, want := nilSums.sum("/", page), sha256.Sum256(page); got != want {
		t.Fatal("nil bodySums: wrong digest")
	}
}

// BenchmarkBodySum compares the digest of a 40 KB page served again with
// hashing it each time.
func BenchmarkBodySum(b *testing.B) {
	page := bytes.Repeat([]byte("<p>Lorem ipsum dolor sit amet.</p>\n"), 1150)
	b.Run("remembered", func(b *testing.B) {
		s := newBodySums(defaultBodySumBytes)
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			s.sum("/", page)
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			sha256.Sum256(page)
		}
	})
}
