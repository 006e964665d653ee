package recover

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
		if got := sameSite(c.manifest, site); got != c.want {
			t.Errorf("sameSite(%q, %q) = %v, want %v", c.manifest, c.site, got, c.want)
		}
	}
	if !sameSite("https://example.org/", nil) {
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
		sameSite(manifest, u)
		if !sameSite(site, u) {
			t.Fatalf("%q does not name its own site", site)
		}
	})
}
