package caddymodule

import (
	"github.com/caddyserver/certmagic"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// FuzzUnmarshalCaddyfile: any input either fails or yields options that
// are positive when set.
func FuzzUnmarshalCaddyfile(f *testing.F) {
	f.Add("lazarus /b")
	f.Add("lazarus {\n bundle /b\n page_budget 256KiB\n max_buffer 1\n query_carriers\n reload_interval 1s\n}")
	f.Fuzz(func(t *testing.T, in string) {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
			return
		}
		if h.PageBudget < 0 || h.MaxBuffer < 0 || h.ReloadInterval < 0 {
			t.Fatalf("%q gave %+v", in, &h)
		}
	})
}

// FuzzPrecondition: a request naming our ETag in If-None-Match always gets
// 304 unless If-Match/If-Unmodified-Since fail first (412).
func FuzzPrecondition(f *testing.F) {
	f.Add(`"a", W/"b"`, "Sat, 21 Nov 2026 10:00:00 GMT", "")
	f.Fuzz(func(t *testing.T, list, ims, im string) {
		const etag = `"lz-0123"`
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("If-None-Match", list+", "+etag)
		r.Header.Set("If-Modified-Since", ims)
		r.Header.Set("If-Match", im)
		got := precondition(r, etag, time.Unix(1e9, 0))
		if got != 304 && !(got == 412 && strings.TrimSpace(im) != "") {
			t.Fatalf("list %q im %q: %d", list, im, got)
		}
	})
}

func BenchmarkServeHTTP_Planned(b *testing.B) {
	f := newFixture(b)
	h := &Handler{Bundle: f.bundle, storage: &certmagic.FileStorage{Path: b.TempDir()}}
	if err := h.setup(); err != nil {
		b.Fatal(err)
	}
	up := &page{body: "<html><body>" + strings.Repeat("<p>text</p>", 2000) + "</body></html>"}
	b.SetBytes(int64(len(up.body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", "/a", nil)
		if err := h.ServeHTTP(httptest.NewRecorder(), r, up); err != nil {
			b.Fatal(err)
		}
	}
}
