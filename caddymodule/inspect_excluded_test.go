package caddymodule

import (
	"net/http"
	"testing"
)

// TestExcludedHeader: the module reads X-Robots-Tag as verify does
// (site.HeaderExcluded): directives for all crawlers or one, "none" and
// Bing's "nocache" keep blocks off; other directives do not.
func TestExcludedHeader(t *testing.T) {
	for v, want := range map[string]string{
		"noarchive":                    "noarchive",
		"NoIndex, nofollow":            "noarchive",
		"none":                         "noarchive",
		"nocache":                      "noarchive",
		"CCBot: noarchive":             "noarchive",
		"max-snippet: 10, notranslate": "",
		"":                             "",
	} {
		if got := excluded(http.Header{"X-Robots-Tag": {v}}, inspection{}); got != want {
			t.Errorf("X-Robots-Tag %q: %q, want %q", v, got, want)
		}
	}
}
