package source

import (
	"strings"
	"testing"
)

// TestParseCDXSpecs: the spellings of CDX servers, as typed on a command
// line or in a Caddyfile, and the sources they make.
func TestParseCDXSpecs(t *testing.T) {
	tests := []struct {
		spec string
		want CDXSource
	}{
		// As always: the Wayback's base, its dialect set.
		{"wayback", CDXSource{Base: "https://web.archive.org", Label: "wayback", Dialect: DialectWayback}},
		{"wayback=http://127.0.0.1:8080/", CDXSource{Base: "http://127.0.0.1:8080", Label: "wayback", Dialect: DialectWayback}},
		{"cdx=https://web.archive.org", CDXSource{Base: "https://web.archive.org"}},
		// A pywb endpoint, its dialect found; a replay prefix given.
		{"cdx=https://host/coll/cdx", CDXSource{Base: "https://host/coll/cdx"}},
		{"cdx=https://cdx.host/coll-index,https://replay.host/coll/", CDXSource{Base: "https://cdx.host/coll-index", Replay: "https://replay.host/coll/"}},
		// pywb= speaks pywb's dialect; a collection's URL names its /cdx.
		{"pywb=https://host/coll/cdx", CDXSource{Base: "https://host/coll/cdx", Dialect: DialectPywb}},
		{"pywb=https://www.webarchive.org.uk/wayback/archive/", CDXSource{Base: "https://www.webarchive.org.uk/wayback/archive/cdx", Dialect: DialectPywb}},
	}
	for _, tt := range tests {
		src, err := Parse(tt.spec, nil)
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		if got, ok := src.(CDXSource); !ok || got != tt.want {
			t.Errorf("%s: %#v, want %#v", tt.spec, src, tt.want)
		}
	}
	if got := (CDXSource{Base: "https://host/coll/cdx", Dialect: DialectPywb}).Name(); got != "pywb=https://host/coll/cdx" {
		t.Errorf("name %q", got)
	}
	for _, bad := range []string{"cdx=", "pywb=", "cdx=web.archive.org", "cdx=ftp://host/coll/cdx", "pywb=https://host/coll/cdx,replay", "cdx=https://host/?q=1"} {
		if _, err := Parse(bad, nil); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: err %v, want one naming the spec", bad, err)
		}
	}
}
