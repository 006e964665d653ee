package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

const captureSecret = "Sup3rS3cretValue"

// captureSite is an injected site on loopback, an empty archive, a Save
// Page Now server capturing into it, and the key files.
type captureSite struct {
	url, serverKey, iaKeys string
	archive                *archivetest.Server
	spn                    *archivetest.SPN
}

// run runs lazarus capture against the loopback servers, fast.
func (s *captureSite) run(t *testing.T, extra ...string) (int, string, string) {
	t.Helper()
	capturePollStart, capturePollMax = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { capturePollStart, capturePollMax = 0, 0 })
	args := append([]string{"--url", s.url, "--key", s.serverKey, "--spn", s.spn.URL, "--source", "wayback=" + s.archive.URL,
		"--site-rate", "600000", "--archive-rate", "600000", "--rate", "100/s"}, extra...)
	var stdout, stderr bytes.Buffer
	code := runCapture(args, &stdout, &stderr)
	if strings.Contains(stdout.String()+stderr.String(), captureSecret) {
		t.Fatalf("the secret was printed:\n%s\n%s", stdout.String(), stderr.String())
	}
	return code, stdout.String(), stderr.String()
}

// newCaptureSite injects a 6-page site served through wrap (if set).
func newCaptureSite(t *testing.T, cfg archivetest.SPNConfig, wrap func(http.Handler) http.Handler) *captureSite {
	t.Helper()
	ks := sitetest.NewSite(t)
	dir, site := ks.Dir, ks.Pages()
	links := ""
	for _, p := range []string{"a", "b", "c", "d", "e"} {
		links += `<a href="` + p + `.html">` + p + "</a>\n"
		writeTestFile(t, filepath.Join(site, p+".html"), "<html><body><p>"+p+"</p></body></html>")
	}
	writeTestFile(t, filepath.Join(site, "index.html"), "<html><body>"+links+"</body></html>")
	writeTestFile(t, filepath.Join(dir, "src/app.conf"), "secret = 1\n")
	var h http.Handler = http.FileServer(http.Dir(site))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	u := "http://" + srv.Listener.Addr().String() + "/"
	_, serverPath := ks.KeyFiles(t)
	o := ks.DefaultOptions(u) // inject's own plan: capture plans for light pages
	o.Includes = []injector.Include{{Path: filepath.Join(dir, "src")}}
	sitetest.Inject(t, o)
	srv.Start()
	t.Cleanup(srv.Close)
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	parsed, _ := url.Parse(u)
	cfg.Access, cfg.Secret, cfg.Allow = "AKEY", captureSecret, []string{parsed.Host}
	s, err := archivetest.NewSPN(arch, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ia := filepath.Join(dir, "ia.keys")
	writeTestFile(t, ia, "AKEY:"+captureSecret+"\n")
	if err := os.Chmod(ia, 0o600); err != nil {
		t.Fatal(err)
	}
	return &captureSite{url: u, serverKey: serverPath, iaKeys: ia, archive: arch, spn: s}
}

// runCaptureArgs runs lazarus capture with exactly args.
func runCaptureArgs(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runCapture(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// failRootForSPN answers the root page 503 to Save Page Now (any client
// but lazarus's): its capture job fails.
func failRootForSPN(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && !strings.Contains(r.UserAgent(), "lazarus") {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}
