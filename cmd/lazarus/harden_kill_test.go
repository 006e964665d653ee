package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// killAfter is how many captures the first run fetches whole before it
// is killed.
const killAfter = 6

// TestRecoverKill9Resumes: `lazarus recover --state` against a local
// Wayback under a 30% fault mix is killed (SIGKILL) while it waits for a
// capture, after fetching killAfter captures whole; the same command run
// again finishes, rebuilds the server files byte for byte, and asks the
// archive for none of the captures the first run completed.
func TestRecoverKill9Resumes(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out Retry-After and stalls")
	}
	bin, err := exec.LookPath("lazarus")
	if err != nil {
		t.Fatal(err)
	}
	dir := killSite(t)
	g := &gate{held: make(chan struct{}), release: make(chan struct{})}
	f := archivetest.Mix(0.3, 21)
	f.StallFor = time.Second // the CLI's client waits 60 s; the archive gives up first
	srv, err := archivetest.New(siteCaptures(t, filepath.Join(dir, "site")), archivetest.Config{MaxRows: 5, Faults: f, Before: g.before})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	g.srv = srv
	args := []string{"recover", "--url", "https://example.org/", "--source", "wayback=" + srv.URL, "--key", "keys/owner.key",
		"--out", "out", "--state", "state", "--rate", "600"}

	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	p := startProc(t, cmd)
	p.waitFor(t, g.isHeld, 2*time.Minute, "the first run never fetched enough captures")
	p.cmd.Process.Kill() // SIGKILL: no cleanup, no journal flush
	p.wait(t, 30*time.Second)
	first := srv.Requests()
	g.open()
	waitLogged(t, srv, len(first)+1) // the held request, answered to nobody
	mark := len(srv.Requests())

	cmd = exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr.String())
	}
	second := srv.Requests()[mark:]
	completed := map[string]bool{}
	for _, r := range first {
		if isWholeReplay(r) {
			completed[r.URI] = true
		}
	}
	refetched, replays := 0, 0
	for _, r := range second {
		if strings.HasPrefix(r.URI, "/web/") {
			replays++
		}
		if completed[r.URI] {
			refetched++
			t.Errorf("the second run asked again for %s, which the first completed", r.URI)
		}
	}
	if len(completed) < killAfter {
		t.Fatalf("the first run completed %d captures, want %d", len(completed), killAfter)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "app", "index.php"))
	if got, err := os.ReadFile(filepath.Join(dir, "out", "app", "index.php")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("index.php: %d bytes (%v), want %d", len(got), err, len(want))
	}
	t.Logf("first run: %d requests, %d captures completed, killed; second run: %d requests (%d replays), %d refetches of completed captures",
		len(first), len(completed), len(second), replays, refetched)
}

// isWholeReplay reports whether a logged request fetched a capture whole.
func isWholeReplay(r archivetest.Request) bool {
	return strings.HasPrefix(r.URI, "/web/") && r.Fault == "" && r.Status == http.StatusOK
}

// gate holds the first replay request that comes after killAfter whole
// ones, until opened.
type gate struct {
	srv           *archivetest.Server
	mu            sync.Mutex
	holding, done bool
	held, release chan struct{}
}

func (g *gate) before(r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/web/") {
		return
	}
	n := 0
	for _, q := range g.srv.Requests() {
		if isWholeReplay(q) {
			n++
		}
	}
	g.mu.Lock()
	hold := n >= killAfter && !g.holding && !g.done
	g.holding = g.holding || hold
	g.mu.Unlock()
	if hold {
		close(g.held)
		<-g.release
	}
}

func (g *gate) isHeld() bool {
	select {
	case <-g.held:
		return true
	default:
		return false
	}
}

// open lets the held request go and holds no other.
func (g *gate) open() {
	g.mu.Lock()
	g.done = true
	g.mu.Unlock()
	close(g.release)
}

// waitLogged waits until the server logged n requests.
func waitLogged(t *testing.T, srv *archivetest.Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(srv.Requests()) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("the held request was never logged")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killSite is interruptSiteN with 30 pages whose server side (app/, 30 kB
// of noise) is injected into every page in small blocks, so recovery
// needs many captures. It injects into the CLI's fixture rather than a
// sitetest.Site: the lazarus processes of the test read its key files.
func killSite(t *testing.T) string {
	t.Helper()
	dir := interruptSiteN(t, 29)
	noise := make([]byte, 30000)
	rand.Read(noise)
	if err := os.WriteFile(filepath.Join(dir, "app", "index.php"), noise, 0o644); err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(dir, "keys", "server.key"))
	if err != nil {
		t.Fatal(err)
	}
	o := injector.DefaultOptions()
	o.Target, o.Fill = 0, true
	o.Includes = []injector.Include{{Path: filepath.Join(dir, "app")}}
	o.ServerKey, o.SiteURL, o.MaxBlockBytes = key, "https://example.org/", 1024
	o.SiteDir, o.StateDir = filepath.Join(dir, "site"), filepath.Join(dir, "injstate")
	if _, err := injector.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return dir
}

// siteCaptures captures every page of a site directory an hour from now.
func siteCaptures(t *testing.T, site string) []archivetest.Capture {
	t.Helper()
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	var caps []archivetest.Capture
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), "index.html")
		caps = append(caps, archivetest.Capture{URL: "https://example.org/" + name, Time: at, Body: body})
	}
	return caps
}
