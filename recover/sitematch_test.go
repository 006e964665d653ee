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
