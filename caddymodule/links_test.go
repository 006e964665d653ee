package caddymodule

import (
	"testing"
)

func TestCanonicalPath(t *testing.T) {
	tests := []struct{ in, want string }{
		// Expected: canonical paths stay as they are.
		{"/", "/"},
		{"/post.html", "/post.html"},
		{"/blog/", "/blog/"},
		// Expected: spellings a file server answers like the canonical
		// path become it, so they share its placement.
		{"//post.html", "/post.html"},
		{"///post.html", "/post.html"},
		{"/./post.html", "/post.html"},
		{"/x/../post.html", "/post.html"},
		{"/blog//2026/", "/blog/2026/"},
		{"/../../post.html", "/post.html"},
		// Expected: a path naming a directory keeps its final slash.
		{"/blog/.", "/blog/"},
		{"/blog/x/..", "/blog/"},
		{"/..", "/"},
		{"", "/"},
	}
	for _, tt := range tests {
		if got := canonicalPath(tt.in); got != tt.want {
			t.Errorf("canonicalPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLinkKey(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"/about/", "/about/", true},
		// Expected: a link is unescaped like a request's URL.Path.
		{"/caf%C3%A9/", "/café/", true},
		{"/a//b", "/a/b", true},
		{"/bad%zz", "", false},
	}
	for _, tt := range tests {
		if got, ok := linkKey(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("linkKey(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLinkSetBounded: the set of linked paths starts over when full.
func TestLinkSetBounded(t *testing.T) {
	s := newLinkSet(3)
	s.add([][16]byte{keyHash("/a"), keyHash("/b"), keyHash("/c")})
	if !s.has("/a") || s.has("/d") {
		t.Fatal("membership wrong")
	}
	s.add([][16]byte{keyHash("/d")})
	if len(s.m) > 3 || !s.has("/d") {
		t.Fatalf("%d entries, /d known %v", len(s.m), s.has("/d"))
	}
}
