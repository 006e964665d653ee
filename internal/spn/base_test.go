package spn

import (
	"net/http"
	"testing"
)

// TestCheckBaseRefuses: base URLs that would send requests to another
// path, or nowhere sensible, are refused (second review).
func TestCheckBaseRefuses(t *testing.T) {
	for _, bad := range []string{"https://web.archive.org#frag", "https://web.archive.org?", "https://web.archive.org:99999",
		"https://user:pw@web.archive.org", "http://evil.com@127.0.0.1", "https://web.archive.org?x=1"} {
		if _, err := CheckBase(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for _, good := range []string{"https://web.archive.org", "https://web.archive.org/", "http://127.0.0.1:8080", "http://[::1]:9"} {
		if _, err := CheckBase(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// TestRetryAfterAbsurd: a Retry-After in seconds past 2^31 is a wait too
// long, not none (second review: it was retried at once).
func TestRetryAfterAbsurd(t *testing.T) {
	for v, want := range map[string]bool{"2147483649": true, "99999999999999999999": true, "0": false, "": false, "soon": false, "00": false} {
		resp := &http.Response{Header: http.Header{"Retry-After": {v}}}
		if got := retryAfterOf(resp) > DefaultMaxWait; got != want {
			t.Errorf("Retry-After %q: beyond the cap %v, want %v", v, got, want)
		}
	}
}
