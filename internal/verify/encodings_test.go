package verify_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// codingServer answers pages in the first coding of prefer that the
// request accepts, as Caddy's encode does; choose may replace the coding
// or the bytes sent for a page.
func codingServer(t *testing.T, prefer []string, choose func(path, coding string, page []byte) (string, []byte)) func(dir string, h http.Handler) http.Handler {
	return func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			accepted := contentcoding.Parse(r.Header.Values("Accept-Encoding"))
			coding := ""
			for _, c := range prefer {
				for _, a := range accepted {
					if a == c && coding == "" {
						coding = c
					}
				}
			}
			if coding == "" || !strings.HasSuffix(r.URL.Path, "/") && !strings.HasSuffix(r.URL.Path, ".html") {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			page := rec.Body.Bytes()
			if choose != nil {
				coding, page = choose(r.URL.Path, coding, page)
			}
			body := append([]byte("\xfd7zXZ\x00"), page...) // xz: no encoder here, only its magic
			if coding != "xz" {
				body = codingtest.MustEncode(t, page, coding)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.Header().Set("Content-Encoding", coding)
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

// TestVerifyReportsWhatEachEncodingGets: a site answering zstd, br and
// gzip as a crawler asks. Expected: per Accept-Encoding, the coding each
// page came in and the same blocks on every page; no warning.
func TestVerifyReportsWhatEachEncodingGets(t *testing.T) {
	s := sitetest.ServedInjected(t, codingServer(t, []string{"zstd", "br", "gzip"}, nil))
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	want := map[string]string{"identity": "identity", "gzip, deflate": "gzip", "gzip, deflate, zstd": "zstd", "gzip, deflate, br, zstd": "zstd"}
	if len(rep.Encodings) != len(want) {
		t.Fatalf("encodings %+v", rep.Encodings)
	}
	for _, e := range rep.Encodings {
		if e.Pages != 4 || e.Codings[want[e.AcceptEncoding]] != 4 || e.SameBlocks != 4 || len(e.Problems) > 0 {
			t.Errorf("%q: %+v", e.AcceptEncoding, e)
		}
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// TestVerifyWarnsOfStaleEncodedCopy: br-asking crawlers get a copy of a
// page made before inject (a precompressed .br sidecar left behind), and
// gzip-asking ones a coding recover cannot read. Expected: a warning for
// each, naming the page and what is wrong, and the verdict short: the
// archives of those crawlers would not hold the generation.
func TestVerifyWarnsOfStaleEncodedCopy(t *testing.T) {
	stale := []byte("<html><body><a href=\"p0.html\">0</a></body></html>")
	s := sitetest.ServedInjected(t, codingServer(t, []string{"br", "zstd", "gzip"}, func(path, coding string, page []byte) (string, []byte) {
		switch {
		case coding == "br" && path == "/":
			return "br", stale
		case coding == "gzip":
			return "xz", page
		}
		return coding, page
	}))
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if !errors.Is(err, verify.ErrShort) || rep == nil || rep.Rebuildable || !strings.Contains(err.Error(), `crawlers asking for "gzip, deflate, br, zstd"`) {
		t.Fatalf("err %v, report %+v", err, rep)
	}
	warnings := strings.Join(rep.Warnings, "\n")
	for _, w := range []string{
		`crawlers asking for "gzip, deflate, br, zstd" (browsers: Save Page Now, Browsertrix, Webrecorder): ` + s.URL + `: answered in br with other Lazarus blocks than without a coding`,
		`crawlers asking for "gzip, deflate" (most crawlers): ` + s.URL + `: answered in xz, which recover cannot read: encoded with "xz"`,
	} {
		if !strings.Contains(warnings, w) {
			t.Errorf("no warning %q in\n%s", w, warnings)
		}
	}
}

// TestVerifyEncodingsOffWithSignalChecks: HygienePages < 0 turns the
// content-coding check off with the signal checks: no request sent.
func TestVerifyEncodingsOffWithSignalChecks(t *testing.T) {
	var asked int
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.Header.Get("Accept-Encoding") {
			case "", "gzip", "gzip, deflate, zstd": // robots.txt; the crawl, as the Internet Archive's
			default:
				asked++
			}
			h.ServeHTTP(w, r)
		})
	})
	o := s.VerifyOptions(s.Server, false)
	o.HygienePages = -1
	rep, err := runVerify(t, o)
	if err != nil || len(rep.Encodings) != 0 || asked != 0 {
		t.Fatalf("err %v, encodings %+v, %d requests asked for a coding", err, rep.Encodings, asked)
	}
}

// TestVerifyCrawlsAsTheInternetArchive: the site answers crawlers asking
// for zstd (the Internet Archive's) with copies of its pages made before
// inject (stale .zst files), everyone else with the pages as they are.
// Expected: short, since that archive would hold no block, though wget
// and browsers get every one.
func TestVerifyCrawlsAsTheInternetArchive(t *testing.T) {
	s := sitetest.ServedInjected(t, codingServer(t, []string{"zstd", "gzip"}, func(path, coding string, page []byte) (string, []byte) {
		if coding == "zstd" {
			return coding, htmlblock.Strip(page)
		}
		return coding, page
	}))
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if !errors.Is(err, verify.ErrShort) && !errors.Is(err, verify.ErrNoGeneration) {
		t.Fatalf("err %v, want the generation short or not found", err)
	}
	if rep.Rebuildable {
		t.Fatalf("report says rebuildable: %+v", rep)
	}
}
