package status

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// FuzzStatusPageLinks: the links read from an archived page (untrusted)
// never panic, are bounded, and canonicalPage is idempotent on them.
func FuzzStatusPageLinks(f *testing.F) {
	f.Add([]byte(`<html><body><a href="/blog/">b</a><a href="about/index.html?x=1">a</a><a href="//other.example/">o</a></body></html>`))
	f.Add([]byte(`<a href="` + strings.Repeat("a/", 100) + `index.htm">`))
	f.Add([]byte(`<a href="%zz"><a href="?">`))
	site, _ := url.Parse("https://example.org/sub/")
	f.Fuzz(func(t *testing.T, page []byte) {
		links := pageLinks(page, site)
		if len(links) > maxScanLinks {
			t.Fatalf("%d links, at most %d", len(links), maxScanLinks)
		}
		for _, l := range links {
			c := siteurl.CanonicalPage(l)
			if siteurl.CanonicalPage(c) != c {
				t.Fatalf("canonicalPage(%q) = %q, not idempotent", l, c)
			}
		}
		// The link graph keeps, once the listing ends, only the links
		// to pages known, and its byte count comes back to the links'.
		g := newStatusLinks()
		g.know("/sub/")
		g.know("/blog/")
		if kept := g.note("/sub/", links); len(kept) > maxScanLinks {
			t.Fatalf("%d links kept, at most %d", len(kept), maxScanLinks)
		}
		g.seal()
		if g.bytes != 4*len(g.out[0]) || len(g.out[0]) > 2 || len(g.ids) != 2 {
			t.Fatalf("after seal: %d bytes, links %v, pages %v", g.bytes, g.out[0], g.ids)
		}
		if d := g.depths("/sub/"); len(d) > 2 {
			t.Fatalf("depths %v: more than the known pages", d)
		}
	})
}

// FuzzStatusReportJSON: a report read back from JSON (a monitoring
// system's copy, untrusted) never panics, durations included, and
// encodes again.
func FuzzStatusReportJSON(f *testing.F) {
	f.Add([]byte(`{"restore_point":{"generation":"g","age_seconds":90.5},"assessment":{"views":[{"name":"sweep","reach_in_seconds":1e300,` +
		`"at":[{"after_seconds":-1e308,"p":0.5}],"segments":[{"name":"app","reach_in_seconds":3}]}],"evidence":{"median_exposure_seconds":7200}}}`))
	f.Add([]byte(`{"restore_point":{"age_seconds":"x"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var r Report
		if json.Unmarshal(raw, &r) != nil {
			return
		}
		if _, err := json.Marshal(&r); err != nil {
			t.Fatalf("a report read from JSON does not encode: %v", err)
		}
	})
}
