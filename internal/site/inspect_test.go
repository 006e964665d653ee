package site

import (
	"net/http"
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

// TestInspectURLsAndNoFollow: URLs keeps every link's query string, each
// link once; nofollow and none are reported.
func TestInspectURLsAndNoFollow(t *testing.T) {
	u, _ := url.Parse("https://example.org/")
	tests := []struct {
		name, page string
		urls       []string
		nofollow   bool
	}{
		{"queries", `<a href="/s?q=1">1</a><a href="/s?q=2">2</a><a href="/s?q=1#x">dup</a><a href="/l?">empty</a><a href="/p">p</a>`,
			[]string{"/s?q=1", "/s?q=2", "/l?", "/p"}, false},
		{"none", `<meta name="robots" content="none"><a href="/p">p</a>`, []string{"/p"}, true},
		{"nofollow for CCBot", `<meta name="ccbot" content="nofollow">`, nil, true},
		{"nofollow on a link only", `<a rel="nofollow" href="/p">p</a>`, []string{"/p"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Inspect([]byte(tt.page), u)
			if !slices.Equal(in.URLs, tt.urls) || in.NoFollow != tt.nofollow {
				t.Fatalf("got %q %v, want %q %v", in.URLs, in.NoFollow, tt.urls, tt.nofollow)
			}
		})
	}
}

func TestHeaderExcluded(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{nil, ""},
		{[]string{"noarchive"}, "noarchive"},
		{[]string{"NoIndex, nofollow"}, "noindex"},
		{[]string{"none"}, "noindex"},
		{[]string{"CCBot: noarchive"}, "noarchive"},
		{[]string{"nofollow", "nocache"}, "noarchive"},
		{[]string{"unavailable_after: 25 Jun 2030 15:00:00 PST"}, ""},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.values {
			h.Add("X-Robots-Tag", v)
		}
		if got := HeaderExcluded(h); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.values, got, tt.want)
		}
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

// FuzzHeaderExcluded: any X-Robots-Tag values give "", "noindex" or
// "noarchive", and adding a value never makes a page kept again.
func FuzzHeaderExcluded(f *testing.F) {
	f.Add("noarchive", "CCBot: none")
	f.Add("unavailable_after: 25 Jun 2030 15:00:00 PST", ":::,,,")
	f.Fuzz(func(t *testing.T, a, b string) {
		h := http.Header{}
		h.Add("X-Robots-Tag", a)
		first := HeaderExcluded(h)
		h.Add("X-Robots-Tag", b)
		both := HeaderExcluded(h)
		for _, got := range []string{first, both} {
			if got != "" && got != "noindex" && got != "noarchive" {
				t.Fatalf("%q, %q: %q", a, b, got)
			}
		}
		if first != "" && both == "" {
			t.Fatalf("%q excludes (%s), but not with %q after it", a, first, b)
		}
	})
}
