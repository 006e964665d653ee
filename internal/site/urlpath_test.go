package site

import (
	"testing"
)

func TestNormalizePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/"},
		{"/", "/"},
		{"/a/b/", "/a/b/"},
		{"/%7euser/", "/~user/"},     // unreserved escapes decoded
		{"/a%2fb", "/a%2Fb"},         // reserved escapes kept, upper case
		{"/caf%c3%a9", "/caf%C3%A9"}, // hex upper case
		{"/café", "/caf%C3%A9"},      // raw non-ASCII escaped
		{"/a b", "/a%20b"},           // raw space escaped
		{"/100%", "/100%25"},         // lone "%" escaped
		{"/%zz", "/%25zz"},           // invalid escape
		{"/a/./b/../c", "/a/c"},      // dot segments
		{"/../../etc/passwd", "/etc/passwd"},
		{"/%2e%2e/%2E%2e/x", "/x"}, // escaped dots are dots
		{"/a/..", "/"},
		{"/a/.", "/a/"},
		{"/a//b", "/a//b"}, // empty segments kept
		{"/!$&'()*+,;=:@", "/!$&'()*+,;=:@"},
		{"/<>\"{}|\\^`", "/%3C%3E%22%7B%7D%7C%5C%5E%60"},
		{"a", "/a"},
	}
	for _, tt := range tests {
		if got := normalizePath(tt.in); got != tt.want {
			t.Errorf("normalizePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := normalizePath(tt.want); again != tt.want {
			t.Errorf("normalizePath(%q) = %q, not a fixed point", tt.want, again)
		}
	}
}

func TestCleanHref(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  /a b.html\n", "/a%20b.html"},
		{"/a\tb\nc", "/abc"},
		{"\\a\\b?c\\d", "/a/b?c%5Cd"},
		{"/50%", "/50%25"},
		{"/%41", "/%41"},
		{"/x#a#b", "/x#a%23b"},
		{"/é", "/%C3%A9"},
	}
	for _, tt := range tests {
		if got := cleanHref(tt.in); got != tt.want {
			t.Errorf("cleanHref(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewSiteRoot(t *testing.T) {
	tests := []struct {
		url    string
		prefix string // "" for an error
	}{
		{"https://example.org", "/"},
		{"https://example.org/", "/"},
		{"http://Example.ORG:80/~u", "/~u/"},
		{"https://example.org/a/b/", "/a/b/"},
		{"https://example.org/a/../b", "/b/"},
		{"ftp://example.org/", ""},
		{"https:///x", ""},
		{"https://example.org/?q", ""},
		{"https://example.org/#f", ""},
		{"mailto:a@example.org", ""},
		{"/relative", ""},
	}
	for _, tt := range tests {
		r, err := newSiteRoot(mustURL(t, tt.url))
		switch {
		case tt.prefix == "" && err == nil:
			t.Errorf("newSiteRoot(%q) succeeded", tt.url)
		case tt.prefix != "" && err != nil:
			t.Errorf("newSiteRoot(%q): %v", tt.url, err)
		case tt.prefix != "" && r.prefix != tt.prefix:
			t.Errorf("newSiteRoot(%q).prefix = %q, want %q", tt.url, r.prefix, tt.prefix)
		}
	}
	if _, err := newSiteRoot(nil); err == nil {
		t.Error("newSiteRoot(nil) succeeded")
	}
}

func TestLocate(t *testing.T) {
	root := mustSiteRoot(t, "https://example.org/site/")
	tests := []struct {
		url  string
		want string // "" when not on the site
	}{
		{"https://example.org/site/", "/"},
		{"https://example.org/site", "/"},
		{"https://example.org/site/a.html", "/a.html"},
		{"http://example.org/site/a.html", "/a.html"},
		{"https://EXAMPLE.org./site/a.html", "/a.html"},
		{"https://example.org:443/site/a.html", "/a.html"},
		{"http://example.org:80/site/a.html", "/a.html"},
		{"https://example.org:8443/site/a.html", ""},
		{"http://example.org:443/site/a.html", ""},
		{"https://www.example.org/site/a.html", ""},
		{"https://example.org/other/a.html", ""},
		{"https://example.org/sitemap.html", ""},
		{"https://example.org/site/x/../../a.html", ""},
		{"https://example.org/site/q?x=1", "/q?x=1"},
		{"https://example.org/site/q?", "/q?"},
		{"https://example.org/site/f#frag", "/f"},
		{"ftp://example.org/site/a.html", ""},
		{"https://user:pw@example.org/site/u.html", "/u.html"},
	}
	for _, tt := range tests {
		got, ok := root.locate(mustURL(t, tt.url))
		if tt.want == "" {
			if ok {
				t.Errorf("locate(%q) = %q, want not on the site", tt.url, got)
			}
			continue
		}
		if !ok || got.String() != tt.want {
			t.Errorf("locate(%q) = %q, %v, want %q", tt.url, got, ok, tt.want)
		}
	}
}

func TestFileName(t *testing.T) {
	tests := []struct {
		rel  string
		name string
		dir  bool
		ok   bool
	}{
		{"/", "", true, true},
		{"/a.html", "a.html", false, true},
		{"/a/b/", "a/b", true, true},
		{"/caf%C3%A9.html", "café.html", false, true},
		{"/a%20b", "a b", false, true},
		{"/a%2Fb", "", false, false},
		{"/a%5Cb", "", false, false},
		{"/a%00b", "", false, false},
		{"/a//b", "", false, false},
		{"/%2E%2E/x", "", false, false}, // only if the path was not normalized
	}
	for _, tt := range tests {
		name, dir, ok := fileName(tt.rel)
		if name != tt.name || dir != tt.dir || ok != tt.ok {
			t.Errorf("fileName(%q) = %q, %v, %v, want %q, %v, %v", tt.rel, name, dir, ok, tt.name, tt.dir, tt.ok)
		}
	}
}
