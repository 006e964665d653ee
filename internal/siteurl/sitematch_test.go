package siteurl

import (
	"net/url"
	"testing"
)

// TestSameSite: a manifest names the audited or recovered site when host
// (case, "www." aside), port (scheme defaults aside) and path (one under
// the other) agree.
func TestSameSite(t *testing.T) {
	for _, c := range []struct {
		manifest, site string
		want           bool
	}{
		{"https://example.org/", "https://example.org/", true},
		{"http://example.org/", "https://www.Example.org/", true},
		{"https://example.org/blog/", "https://example.org/", true},
		{"https://example.org/", "https://example.org/blog/index.html", true},
		{"https://example.org/", "https://shop.example.org/", false},
		{"http://127.0.0.1:18483/", "http://127.0.0.1:28483/", false},
		{"https://example.org/blog/", "https://example.org/shop/", false},
		{"://bad", "https://example.org/", false},
		{"https://bücher.example/", "https://xn--bcher-kva.example/", true},
		{"https://example.org./", "https://example.org/", true},
		{"http://[::1]:8080/", "http://[0:0:0:0:0:0:0:1]:8080/", true},
	} {
		site, _ := url.Parse(c.site)
		if got := SameSite(c.manifest, site); got != c.want {
			t.Errorf("sameSite(%q, %q) = %v, want %v", c.manifest, c.site, got, c.want)
		}
	}
	if !SameSite("https://example.org/", nil) {
		t.Error("no site to compare with must accept")
	}
}

// FuzzSameSite: a manifest's site URL (signed, but written by whoever
// held the server key) never makes sameSite panic, and every URL names
// its own site.
func FuzzSameSite(f *testing.F) {
	for _, s := range []string{"https://example.org/", "http://WWW.Example.org.:80/blog/x", "https://[::1]:8443/", "https://bücher.example/", "%zz", ""} {
		f.Add(s, "https://example.org/")
	}
	f.Fuzz(func(t *testing.T, manifest, site string) {
		u, err := url.Parse(site)
		if err != nil {
			return
		}
		SameSite(manifest, u)
		if !SameSite(site, u) {
			t.Fatalf("%q does not name its own site", site)
		}
	})
}

// TestCarrierOn: a carrier a manifest names is fetched by its path and
// query on the site asked for, when it is on that site or on the
// manifest's own site moved there (another scheme, host or port, one path
// under the other); never on a host the user did not name.
func TestCarrierOn(t *testing.T) {
	for _, c := range []struct {
		asked, made, carrier string
		want                 string // "": refused
	}{
		// The site as inject recorded it.
		{"https://example.org/", "https://example.org/", "/a.html", "https://example.org/a.html"},
		{"https://example.org/", "https://example.org/", "https://www.example.org/a?x=1", "https://example.org/a?x=1"},
		// Moved: a staging host and port, http; a new domain; https.
		{"http://127.0.0.1:18931/", "https://example.org/", "https://example.org/a.html", "http://127.0.0.1:18931/a.html"},
		{"http://127.0.0.1:18931/", "https://example.org/", "p%20q.html?x=1#top", "http://127.0.0.1:18931/p%20q.html?x=1"},
		{"https://new.example/", "https://example.org/blog/", "post/", "https://new.example/blog/post/"},
		{"https://example.org/", "http://example.org/", "http://example.org/a", "https://example.org/a"},
		{"https://example.org/blog/", "https://old.example/", "https://old.example/blog/a", "https://example.org/blog/a"},
		// Already on the site asked for, whatever the manifest's site.
		{"https://new.example/", "https://old.example/shop/", "https://new.example/a", "https://new.example/a"},
		// No site asked for: the manifest's own.
		{"", "https://example.org/", "/a", "https://example.org/a"},
		{"", "https://example.org/", "https://evil.example/a", ""},
		// No manifest (a serve history's paths): on the site asked for.
		{"https://example.org/", "", "/about/", "https://example.org/about/"},
		// Refused: a third host, another port of the manifest's host,
		// another scheme, a site elsewhere on the manifest's host.
		{"http://127.0.0.1:18931/", "https://example.org/", "https://evil.example/a", ""},
		{"http://127.0.0.1:18931/", "https://example.org/", "https://example.org:8443/a", ""},
		{"http://127.0.0.1:18931/", "https://example.org/", "ftp://example.org/a", ""},
		{"http://127.0.0.1:18931/", "https://example.org/", "javascript:alert(1)", ""},
		{"https://new.example/blog/", "https://example.org/shop/", "https://example.org/shop/a", ""},
		{"http://127.0.0.1:18931/", "https://example.org/", "//evil.example/a", ""},
	} {
		var asked, made *url.URL
		if c.asked != "" {
			asked, _ = url.Parse(c.asked)
		}
		if c.made != "" {
			made, _ = url.Parse(c.made)
		}
		got := ""
		if u := CarrierOn(asked, made, c.carrier); u != nil {
			got = u.String()
		}
		if got != c.want {
			t.Errorf("carrierOn(%s, %s, %q) = %q, want %q", c.asked, c.made, c.carrier, got, c.want)
		}
	}
}
