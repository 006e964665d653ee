package site

import (
	"net/url"
	"slices"
	"testing"
)

func TestInspect(t *testing.T) {
	u, _ := url.Parse("https://example.org/blog/")
	tests := []struct {
		name, page string
		links      []string
		excluded   string
	}{
		{"links", `<a href="post.html">p</a><a href="/about/">a</a><a href="https://example.org/about/#x">dup</a>
			<a href="https://other.org/">other host</a><a href="/s?q=1">query</a><a href="mailto:x@y">mail</a>`,
			[]string{"/blog/post.html", "/about/", "/s"}, ""},
		{"base", `<base href="/docs/"><a href="intro.html">i</a>`, []string{"/docs/intro.html"}, ""},
		{"noarchive", `<meta name="robots" content="noarchive"><a href="/x">x</a>`, []string{"/x"}, "noarchive"},
		{"noindex for CCBot", `<meta name="CCBot" content="noindex">`, nil, "noindex"},
		{"other agent ignored", `<meta name="googlebot" content="noarchive">`, nil, ""},
		{"template skipped", `<template><a href="/t">t</a></template>`, nil, ""},
		{"garbage", "\x00<<a href=/ok>", []string{"/ok"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Inspect([]byte(tt.page), u)
			if !slices.Equal(in.Links, tt.links) || in.Excluded != tt.excluded {
				t.Fatalf("got %q %q, want %q %q", in.Links, in.Excluded, tt.links, tt.excluded)
			}
		})
	}
	if in := Inspect([]byte(`<a href="/x">`), nil); in.Links != nil {
		t.Fatalf("no page URL: links %q", in.Links)
	}
}

// FuzzInspect: any bytes give links that are site paths starting with "/".
func FuzzInspect(f *testing.F) {
	f.Add([]byte(`<base href="../"><a href="a/../b?c#d">x</a><meta name=robots content=none>`))
	u, _ := url.Parse("http://127.0.0.1:8080/x/y")
	f.Fuzz(func(t *testing.T, page []byte) {
		for _, l := range Inspect(page, u).Links {
			if len(l) == 0 || l[0] != '/' {
				t.Fatalf("link %q", l)
			}
		}
	})
}
