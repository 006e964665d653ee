package archive

import "testing"

// TestResolveCDX: a base and the endpoint forms, with the replay prefix
// each implies or is given.
func TestResolveCDX(t *testing.T) {
	tests := []struct {
		base, replay string
		want         CDXServer
	}{
		// Bases, as always: the Wayback's API and /web/ replay.
		{"https://web.archive.org", "", CDXServer{"https://web.archive.org/cdx/search/cdx", "https://web.archive.org/web/", DialectWayback}},
		{"https://web.archive.org/", "", CDXServer{"https://web.archive.org/cdx/search/cdx", "https://web.archive.org/web/", DialectWayback}},
		{"http://127.0.0.1:8080/wayback", "", CDXServer{"http://127.0.0.1:8080/wayback/cdx/search/cdx", "http://127.0.0.1:8080/wayback/web/", DialectWayback}},
		// The Wayback's endpoint given in full.
		{"https://web.archive.org/cdx/search/cdx", "", CDXServer{"https://web.archive.org/cdx/search/cdx", "https://web.archive.org/web/", DialectWayback}},
		// pywb endpoints: /{coll}/cdx, /{coll}-cdx, /{coll}-index, the root collection.
		{"https://www.webarchive.org.uk/wayback/archive/cdx", "", CDXServer{"https://www.webarchive.org.uk/wayback/archive/cdx", "https://www.webarchive.org.uk/wayback/archive/", DialectPywb}},
		{"https://host/coll-cdx/", "", CDXServer{"https://host/coll-cdx", "https://host/coll/", DialectPywb}},
		{"https://index.commoncrawl.org/CC-MAIN-2024-10-index", "", CDXServer{"https://index.commoncrawl.org/CC-MAIN-2024-10-index", "https://index.commoncrawl.org/CC-MAIN-2024-10/", DialectPywb}},
		{"http://host:8080/cdx", "", CDXServer{"http://host:8080/cdx", "http://host:8080/", DialectPywb}},
		{"https://host/coll/cdx?key=1", "", CDXServer{"https://host/coll/cdx?key=1", "https://host/coll/", DialectPywb}},
		// A replay prefix given.
		{"https://cdx.host/coll/cdx", "https://replay.host/coll", CDXServer{"https://cdx.host/coll/cdx", "https://replay.host/coll/", DialectPywb}},
		// "-index" alone and a host named cdx are not endpoints.
		{"https://host/-index", "", CDXServer{"https://host/-index/cdx/search/cdx", "https://host/-index/web/", DialectWayback}},
		{"https://cdx", "", CDXServer{"https://cdx/cdx/search/cdx", "https://cdx/web/", DialectWayback}},
	}
	for _, tt := range tests {
		got, err := ResolveCDX(tt.base, tt.replay)
		if err != nil || got != tt.want {
			t.Errorf("ResolveCDX(%q, %q) = %+v, %v; want %+v", tt.base, tt.replay, got, err, tt.want)
		}
	}
	for _, bad := range [][2]string{{"", ""}, {"web.archive.org", ""}, {"ftp://host/coll/cdx", ""}, {"https:///cdx", ""},
		{"https://host/#x", ""}, {"https://host/?x=1", ""}, {"https://host/coll/cdx", "/coll/"}} {
		if got, err := ResolveCDX(bad[0], bad[1]); err == nil {
			t.Errorf("ResolveCDX(%q, %q) = %+v, want an error", bad[0], bad[1], got)
		}
	}
}
