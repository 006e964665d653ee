package spn

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReadAnonymous: the answers to GET /save/{url} the archive has
// given, each read as what it means.
func TestReadAnonymous(t *testing.T) {
	const u = "https://example.org/a"
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		a      httpAnswer
		state  string // "" when an error ends the run
		job    string
		endErr error
	}{
		// palewire/savepagenow's first choice: Content-Location
		{"content-location", httpAnswer{status: 200, header: h("Content-Location", "/web/20260102030405/https://example.org/a")}, StateSuccess, "", nil},
		// a redirect to the capture
		{"location", httpAnswer{status: 302, header: h("Location", "https://web.archive.org/web/20260102030405id_/https://example.org/a")}, StateSuccess, "", nil},
		// the Link header's memento entry (commas inside targets are no harm)
		{"link", httpAnswer{status: 200, header: h("Link", `<https://example.org/a>; rel="original", <https://web.archive.org/web/20260102030405/https://example.org/a>; rel="last memento"; datetime="Fri, 02 Jan 2026 03:04:05 GMT"`)}, StateSuccess, "", nil},
		{"capture elsewhere", httpAnswer{status: 200, header: h("Content-Location", "/web/20260102030405/https://other.example/x")}, StateError, "", nil},
		{"job page", httpAnswer{status: 200, header: h(), body: []byte(`<script>spn.watchJob("spn2-0123456789abcdef0123456789abcdef01234567", "/_static/",6000);</script>`)}, "", "spn2-0123456789abcdef0123456789abcdef01234567", nil},
		{"nothing named", httpAnswer{status: 200, header: h(), body: []byte("<html>Saving page</html>")}, StateAccepted, "", nil},
		{"runtime error", httpAnswer{status: 200, header: h("X-Archive-Wayback-Runtime-Error", "RobotAccessControlException: Blocked By Robots")}, StateError, "", nil},
		{"other 4xx", httpAnswer{status: 400, header: h()}, StateError, "", nil},
		{"login", httpAnswer{status: 200, header: h(), body: []byte("<p>You need to be logged in to use Save Page Now.</p>")}, "", "", ErrKeysRequired},
		{"401", httpAnswer{status: 401, header: h()}, "", "", ErrKeysRequired},
		{"404", httpAnswer{status: 404, header: h()}, "", "", ErrKeysRequired},
		{"daily", httpAnswer{status: 200, header: h(), body: []byte("You have reached your daily not-logged-in captures limit of (200,) webpages")}, "", "", ErrDailyLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, r, err := readAnonymous(u, tc.a)
			switch {
			case tc.endErr != nil:
				if !errors.Is(err, tc.endErr) || r != nil {
					t.Fatalf("%v %+v, want %v", err, r, tc.endErr)
				}
			case tc.job != "":
				if id != tc.job || r != nil || err != nil {
					t.Fatalf("%q %+v %v", id, r, err)
				}
			default:
				if err != nil || r == nil || r.State != tc.state || id != "" {
					t.Fatalf("%q %+v %v, want %s", id, r, err, tc.state)
				}
				if tc.state == StateSuccess && r.Time.Format(time.RFC3339) != "2026-01-02T03:04:05Z" {
					t.Fatalf("time %v", r.Time)
				}
			}
		})
	}
}

// FuzzReadAnonymous: answers without keys are untrusted. Reading never
// panics; it yields exactly one of a job id (one the client can put in
// a URL path), a result, or an error; a success names a time and a
// capture of the requested site.
func FuzzReadAnonymous(f *testing.F) {
	f.Add(200, "/web/20260102030405/https://example.org/a", "", "")
	f.Add(302, "", `<https://web.archive.org/web/20260102030405/https://example.org/a>; rel="memento"`, `spn2-0123456789abcdef01`)
	f.Add(401, "", "", "need to be logged in")
	f.Add(200, "/web/2026/x", "<x>; rel=memento,<", "daily captures limit")
	f.Fuzz(func(t *testing.T, status int, loc, link, body string) {
		hdr := http.Header{}
		hdr.Set("Content-Location", loc)
		hdr.Set("Link", link)
		id, r, err := readAnonymous("https://example.org/a", httpAnswer{status: status, header: hdr, body: []byte(body)})
		n := 0
		for _, set := range []bool{id != "", r != nil, err != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("id %q, result %+v, err %v: want exactly one", id, r, err)
		}
		if id != "" && (!jobID.MatchString(id) || strings.ContainsAny(id, "/?#")) {
			t.Fatalf("job id %q", id)
		}
		if r != nil && r.State == StateSuccess && (r.Time.IsZero() || !sameSite("https://example.org/a", r.OriginalURL)) {
			t.Fatalf("success %+v", r)
		}
	})
}
