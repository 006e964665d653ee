package caddymodule

import (
	"net/http"
	"strings"
	"time"
)

// lastModified is the Last-Modified of a page with blocks: the later of
// the upstream's and since (when the page's blocks last changed), to whole
// seconds in UTC. It is zero when the upstream sent none (or one that
// does not parse): a dynamic page changes without saying when, so a date
// made up from the blocks alone would turn If-Modified-Since into a stale
// 304; then only the ETag validates.
func lastModified(upstream string, since time.Time) time.Time {
	t, err := http.ParseTime(upstream)
	if err != nil {
		return time.Time{}
	}
	if since.After(t) {
		t = since
	}
	return t.UTC().Truncate(time.Second)
}

// precondition evaluates the request's conditionals against the final
// representation (RFC 9110 §13.2.2) and returns 200 to send it, 412 or 304.
// Range and If-Range are ignored: the full 200 is sent. A zero lm means no
// modification date: If-Unmodified-Since and If-Modified-Since are ignored.
func precondition(r *http.Request, etag string, lm time.Time) int {
	if im := strings.TrimSpace(r.Header.Get("If-Match")); im != "" {
		if !etagMatch(im, etag, false) {
			return http.StatusPreconditionFailed
		}
	} else if t, err := http.ParseTime(r.Header.Get("If-Unmodified-Since")); err == nil && !lm.IsZero() && lm.After(t) {
		return http.StatusPreconditionFailed
	}
	if inm := strings.TrimSpace(r.Header.Get("If-None-Match")); inm != "" {
		if etagMatch(inm, etag, true) {
			return http.StatusNotModified
		}
		return http.StatusOK
	}
	if t, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !lm.IsZero() && !lm.After(t) {
		return http.StatusNotModified
	}
	return http.StatusOK
}

// etagMatch reports whether the list (or "*") matches etag, by weak
// comparison if weak, else strong. Our ETags are strong; an upstream's
// may be weak (W/"…"), and then only match weakly.
func etagMatch(list, etag string, weak bool) bool {
	if etag == "" {
		return false
	}
	if strings.TrimSpace(list) == "*" {
		return true
	}
	tag, isWeak := strings.CutPrefix(etag, "W/")
	if isWeak && !weak {
		return false
	}
	for part := range strings.SplitSeq(list, ",") {
		t := strings.TrimSpace(part)
		if strings.HasPrefix(t, "W/") {
			if !weak {
				continue
			}
			t = t[2:]
		}
		if t == tag {
			return true
		}
	}
	return false
}
