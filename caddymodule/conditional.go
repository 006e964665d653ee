package caddymodule

import (
	"net/http"
	"strings"
	"time"
)

// lastModified is the later of the upstream Last-Modified (if it parses)
// and the generation time, to whole seconds in UTC.
func lastModified(upstream string, gen time.Time) time.Time {
	lm := gen.UTC().Truncate(time.Second)
	if t, err := http.ParseTime(upstream); err == nil && t.After(lm) {
		lm = t.UTC().Truncate(time.Second)
	}
	return lm
}

// precondition evaluates the request's conditionals against the final
// representation (RFC 9110 §13.2.2) and returns 200 to send it, 412 or 304.
// Range and If-Range are ignored: the full 200 is sent.
func precondition(r *http.Request, etag string, lm time.Time) int {
	if im := strings.TrimSpace(r.Header.Get("If-Match")); im != "" {
		if !etagMatch(im, etag, false) {
			return http.StatusPreconditionFailed
		}
	} else if t, err := http.ParseTime(r.Header.Get("If-Unmodified-Since")); err == nil && lm.After(t) {
		return http.StatusPreconditionFailed
	}
	if inm := strings.TrimSpace(r.Header.Get("If-None-Match")); inm != "" {
		if etagMatch(inm, etag, true) {
			return http.StatusNotModified
		}
		return http.StatusOK
	}
	if t, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !lm.After(t) {
		return http.StatusNotModified
	}
	return http.StatusOK
}

// etagMatch reports whether the list (or "*") matches etag, by weak
// comparison if weak, else strong (our ETags are always strong).
func etagMatch(list, etag string, weak bool) bool {
	if strings.TrimSpace(list) == "*" {
		return true
	}
	for part := range strings.SplitSeq(list, ",") {
		t := strings.TrimSpace(part)
		if strings.HasPrefix(t, "W/") {
			if !weak {
				continue
			}
			t = t[2:]
		}
		if t == etag {
			return true
		}
	}
	return false
}
