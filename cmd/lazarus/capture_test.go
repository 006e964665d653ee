package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

const captureSecret = "Sup3rS3cretValue"

// captureSite is an injected site on loopback, an empty archive, a Save
// Page Now server capturing into it, and the key files.
type captureSite struct {
	url, serverKey, iaKeys string
	archive                *archivetest.Server
	spn                    *archivetest.SPN
}

// newCaptureSite injects a 6-page site served through wrap (if set).
func newCaptureSite(t *testing.T, cfg archivetest.SPNConfig, wrap func(http.Handler) http.Handler) *captureSite {
	t.Helper()
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
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
	ownerPath, serverPath, err := keys.WriteNewPair(filepath.Join(dir, "keys"), true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_ = ownerPath
	server, _, err := keys.LoadServer(serverPath)
	if err != nil {
		t.Fatal(err)
	}
	o := injector.DefaultOptions()
	o.Includes = []injector.Include{{Path: filepath.Join(dir, "src")}}
	o.ServerKey, o.SiteURL, o.SiteDir, o.StateDir = server.Marshal(), u, site, filepath.Join(dir, "state")
	if _, err := injector.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
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

// TestCaptureCLI: a dry run plans and sends nothing; a run asks for the
// root page first and exits 0 once the archive holds the generation; a
// second run (JSON) has nothing to ask for.
func TestCaptureCLI(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{}, nil)
	code, stdout, stderr := s.run(t, "--access-key-file", s.iaKeys, "--dry-run")
	if code != exitOK || !strings.Contains(stdout, "Would ask for") || !strings.Contains(stdout, "1. "+s.url+" (the manifest") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := len(s.spn.Requests()); n != 0 {
		t.Fatalf("dry run sent %d requests", n)
	}
	code, stdout, stderr = s.run(t, "--access-key-file", s.iaKeys)
	if code != exitOK || !strings.Contains(stdout, "captured   "+s.url) || !strings.Contains(stdout, "it is recoverable") {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = s.run(t, "--access-key-file", s.iaKeys, "--json")
	var rep struct {
		Plan []any `json:"plan"`
		Safe bool  `json:"safe"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitOK || err != nil || len(rep.Plan) != 0 || !rep.Safe {
		t.Fatalf("second run: exit %d (%v)\n%s\n%s", code, err, stdout, stderr)
	}
}

// TestCaptureCLIExits: usage errors exit 2 and send nothing; a refused
// key exits 1; a world-readable key file is warned about; the daily
// limit after a failed job exits 3 and says how many were sent.
func TestCaptureCLIExits(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{Daily: 1}, failRootForSPN)
	for name, args := range map[string][]string{
		"no access key file": nil,
		"bad rate":           {"--access-key-file", s.iaKeys, "--rate", "12/day"},
		"negative margin":    {"--access-key-file", s.iaKeys, "--margin", "-1"},
	} {
		if code, _, stderr := s.run(t, args...); code != exitUsage {
			t.Errorf("%s: exit %d, want 2\n%s", name, code, stderr)
		}
	}
	if n := len(s.spn.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
	bad := filepath.Join(t.TempDir(), "bad.keys")
	writeTestFile(t, bad, "AKEY:wrong-"+captureSecret+"\n")
	code, _, stderr := s.run(t, "--access-key-file", bad)
	if code != exitError || !strings.Contains(stderr, "the access key was refused by") || !strings.Contains(stderr, "archive.org/account/s3.php") || !strings.Contains(stderr, "accessible by other users") {
		t.Fatalf("refused key: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := s.run(t, "--access-key-file", s.iaKeys)
	if code != exitPartial || !strings.Contains(stdout, "failed     "+s.url) || !strings.Contains(stderr, "daily capture limit is reached after 1 request") {
		t.Fatalf("daily limit: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
