package caddymodule

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

// fixture is a bundle made by the real injector and the files it preserves.
type fixture struct {
	bundle, src string
	owner       []byte
	opts        injector.Options
}

var genTime = time.Unix(1795255200, 0).UTC()

// newFixture injects src/app (random, so many blocks) into a bundle
// whose plan names urls, by default /, /a, /b and /c.
func newFixture(t testing.TB, urls ...string) *fixture {
	t.Helper()
	s := sitetest.NewSite(t)
	f := &fixture{bundle: s.Path("bundle"), src: s.Path("src"), owner: s.Owner.Marshal()}
	noise := make([]byte, 20000)
	rand.Read(noise)
	writeFile(t, filepath.Join(f.src, "app/index.php"), noise)
	writeFile(t, filepath.Join(f.src, "app/app.conf"), []byte("secret = 1\n"))
	// Pages filled as before target plans (the layout these tests were
	// written for); TestModuleLightPages covers the default.
	o := s.Options("https://example.org/")
	o.Includes = s.Include("app")
	o.SiteDir, o.BundleDir = "", f.bundle // generations for the module, no site
	o.URLs = urls
	if len(urls) == 0 {
		o.URLs = []string{"/", "/a", "/b", "/c"}
	}
	o.Now = func() time.Time { return genTime }
	f.opts = o
	f.inject(t)
	return f
}

func (f *fixture) inject(t testing.TB) {
	t.Helper()
	if _, err := injector.Run(context.Background(), f.opts); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// newHandler returns a set-up handler for bundle with its own storage.
func newHandler(t *testing.T, bundle string) *Handler {
	t.Helper()
	return newHandlerOn(t, bundle, &certmagic.FileStorage{Path: t.TempDir()})
}

// newHandlerOn returns a set-up handler for bundle keeping its placement
// state in st.
func newHandlerOn(t *testing.T, bundle string, st certmagic.Storage) *Handler {
	t.Helper()
	h := &Handler{Bundle: bundle, storage: st, Fill: true}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

// bundleAt reads the bundle directory dir.
func bundleAt(dir string) *bundleStore {
	return &bundleStore{st: &certmagic.FileStorage{Path: dir}}
}

// page is an upstream serving a small HTML page, recording what it got.
type page struct {
	body    string
	header  http.Header
	status  int
	got     *http.Request
	flushes int
}

func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	p.got = r
	for k, v := range p.header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	if p.status == 0 {
		p.status = http.StatusOK
	}
	w.WriteHeader(p.status)
	for i := 0; i < p.flushes; i++ {
		w.Write([]byte(p.body))
		if err := http.NewResponseController(w).Flush(); err != nil {
			return err
		}
	}
	if p.flushes == 0 {
		w.Write([]byte(p.body))
	}
	return nil
}

const html = "<html><body><p>hello</p></body></html>"

// serve runs one request through h in front of next.
func serve(t *testing.T, h *Handler, next caddyhttp.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.history.close) // before the storage's TempDir goes
	return w
}

func hasComments(b []byte) bool { return bytes.Contains(b, []byte("<!-- lazarus block 1")) }
