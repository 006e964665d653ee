package caddymodule

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/certmagic"
)

// adaptLazarus adapts a Caddyfile and returns the JSON of its one lazarus
// handler, or the adapter's error.
func adaptLazarus(t *testing.T, caddyfile string) (json.RawMessage, error) {
	t.Helper()
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		return nil, err
	}
	var found []json.RawMessage
	var walk func(json.RawMessage)
	walk = func(raw json.RawMessage) {
		var obj map[string]json.RawMessage
		var arr []json.RawMessage
		switch {
		case json.Unmarshal(raw, &obj) == nil:
			if string(obj["handler"]) == `"lazarus"` {
				found = append(found, raw)
			}
			for _, v := range obj {
				walk(v)
			}
		case json.Unmarshal(raw, &arr) == nil:
			for _, v := range arr {
				walk(v)
			}
		}
	}
	walk(out)
	if len(found) != 1 {
		t.Fatalf("%d lazarus handlers in the adapted config, want 1:\n%s", len(found), out)
	}
	return found[0], nil
}

// TestCaddyfileSiteURL: in a site block naming one host, site_url
// defaults to that site's URL; with several hosts, a wildcard or no host
// the Caddyfile must say it, and adapting says so.
func TestCaddyfileSiteURL(t *testing.T) {
	const block = "{\n\tlazarus {\n\t\tsource /srv/app\n\t\tkey /k/server.key\n\t}\n}\n"
	tests := []struct {
		name, addr string
		want       string // site_url; "" when adapting fails
		wantErr    string
	}{
		{"http scheme", "http://example.org", "http://example.org/", ""},
		{"bare host: https", "example.org", "https://example.org/", ""},
		{"https scheme", "https://example.org", "https://example.org/", ""},
		{"port 80: http", "example.org:80", "http://example.org/", ""},
		{"other port: https", "example.org:8443", "https://example.org:8443/", ""},
		{"http with a port", "http://example.org:8080", "http://example.org:8080/", ""},
		{"upper case host", "Example.ORG", "https://example.org/", ""},
		{"IPv6 with port", "http://[::1]:8080", "http://[::1]:8080/", ""},
		{"two hosts", "example.org, www.example.org", "", "names 2 addresses"},
		{"wildcard", "*.example.org", "", "wildcard"},
		{"no host", ":8080", "", "names no host"},
		{"path", "example.org/blog", "", "path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := adaptLazarus(t, tt.addr+" "+block)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), "site_url") || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("adapting %q: error %v, want one saying site_url is needed because the address %s", tt.addr, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("adapting %q: %v", tt.addr, err)
			}
			var h Handler
			if err := json.Unmarshal(raw, &h); err != nil {
				t.Fatal(err)
			}
			if h.Build == nil || h.Build.SiteURL != tt.want {
				t.Fatalf("site block %q: handler %s, want site_url %q", tt.addr, raw, tt.want)
			}
		})
	}
	// Expected: a site_url given in the block wins over the address, and
	// one given for a block with several hosts makes it adapt.
	raw, err := adaptLazarus(t, "a.example.org, b.example.org {\n\tlazarus {\n\t\tsource /srv/app\n\t\tkey /k\n\t\tsite_url https://example.org/\n\t}\n}\n")
	if err != nil || !strings.Contains(string(raw), `"site_url":"https://example.org/"`) {
		t.Fatalf("explicit site_url: %s, %v", raw, err)
	}
	// Expected: the bundle mode needs no site_url whatever the address.
	if _, err := adaptLazarus(t, "*.example.org {\n\tlazarus {\n\t\tbundle /srv/bundle\n\t}\n}\n"); err != nil {
		t.Fatalf("bundle mode under a wildcard: %v", err)
	}
}

// TestCaddyfileSiteURLProvisions: the new user's Caddyfile, a
// self-building lazarus in `http://example.org { … }` without site_url,
// provisions; JSON without site_url still fails, saying site_url is
// required.
func TestCaddyfileSiteURLProvisions(t *testing.T) {
	f := newBuildFixture(t)
	caddyfile := fmt.Sprintf("http://example.org {\n\tlazarus {\n\t\tsource %q\n\t\tkey %q\n\t}\n}\n", f.build.Sources[0].Path, f.build.Key)
	raw, err := adaptLazarus(t, caddyfile)
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{storage: &certmagic.FileStorage{Path: filepath.Join(t.TempDir(), "storage")}}
	if err := json.Unmarshal(raw, h); err != nil {
		t.Fatal(err)
	}
	if err := h.setup(); err != nil {
		t.Fatalf("provisioning %s: %v", raw, err)
	}
	if err := h.Validate(); err != nil {
		t.Fatalf("validating %s: %v", raw, err)
	}
	if got := h.builder.opts.SiteURL; got != "http://example.org/" {
		t.Fatalf("the builder records site URL %q, want http://example.org/", got)
	}

	b := f.build
	b.SiteURL = ""
	bare := &Handler{Build: &b, storage: &certmagic.FileStorage{Path: filepath.Join(t.TempDir(), "storage")}}
	if err := bare.setup(); err == nil || !strings.Contains(err.Error(), "site_url is required") {
		t.Fatalf("JSON config without site_url: error %v, want one saying site_url is required", err)
	}
}

// TestSiteURL: the URL of a site address, as Caddy serves it, or why the
// address names no one site.
func TestSiteURL(t *testing.T) {
	tests := []struct {
		keys     []string
		httpPort int
		want     string // "" for an error
	}{
		{[]string{"example.org"}, 80, "https://example.org/"},
		{[]string{"example.org:443"}, 80, "https://example.org/"},
		{[]string{"https://example.org:443"}, 80, "https://example.org/"},
		{[]string{"http://example.org:80"}, 80, "http://example.org/"},
		{[]string{"https://example.org:80"}, 80, "https://example.org:80/"},
		{[]string{"example.org:8080"}, 8080, "http://example.org:8080/"}, // http_port 8080
		{[]string{"localhost"}, 80, "https://localhost/"},
		{[]string{"127.0.0.1:2015"}, 80, "https://127.0.0.1:2015/"},
		{[]string{"[::1]"}, 80, "https://[::1]/"},
		{[]string{"http://[::1]:80"}, 80, "http://[::1]/"},
		{nil, 80, ""},
		{[]string{"a.org", "b.org"}, 80, ""},
		{[]string{"*.example.org"}, 80, ""},
		{[]string{"*"}, 80, ""},
		{[]string{":443"}, 80, ""},
		{[]string{"http://"}, 80, ""},
		{[]string{"{$SITE}"}, 80, ""}, // a placeholder left as written
		{[]string{"example.org/api/*"}, 80, ""},
		{[]string{"wss://example.org"}, 80, ""},
	}
	for _, tt := range tests {
		got, err := siteURL(tt.keys, tt.httpPort)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("siteURL(%q, %d) = %q, %v; want %q", tt.keys, tt.httpPort, got, err, tt.want)
		}
	}
}
