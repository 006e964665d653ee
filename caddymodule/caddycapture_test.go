package caddymodule

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/metrics"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// caddyCaptureSite is a small static site (smallSite's root and 19
// pages) served by Caddy with a self-building lazarus handler that
// audits a loopback archive, optionally asking a Save Page Now stand-in
// (which fetches the pages into that archive) to capture them; Caddy's
// metrics are served at /metrics.
type caddyCaptureSite struct {
	bf      *buildFixture
	dir     string            // the site's files
	bodies  map[string]string // served path → file contents
	arch    *archivetest.Server
	spn     *archivetest.SPN
	keyFile string
}

func newCaddyCaptureSite(t *testing.T) *caddyCaptureSite {
	t.Helper()
	s := &caddyCaptureSite{bf: newBuildFixture(t), dir: t.TempDir(), bodies: map[string]string{}}
	root, pages, body := smallSite()
	writeFile(t, filepath.Join(s.dir, "index.html"), []byte(root))
	s.bodies["/"] = root
	for _, p := range pages {
		writeFile(t, filepath.Join(s.dir, p), []byte(body))
		s.bodies[p] = body
	}
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	s.arch = arch
	s.keyFile = filepath.Join(t.TempDir(), "ia.keys")
	writeFile(t, s.keyFile, []byte("AKEY:"+captureSecret+"\n"))
	return s
}

// run starts Caddy on addr with storage, asking for captures if
// requests; caddy.Stop ends it.
func (s *caddyCaptureSite) run(t *testing.T, addr, storage string, requests bool) {
	t.Helper()
	if requests && s.spn == nil {
		spn, err := archivetest.NewSPN(s.arch, archivetest.SPNConfig{Access: "AKEY", Secret: captureSecret, Allow: []string{addr}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(spn.Close)
		s.spn = spn
	}
	capture := ""
	if requests {
		capture = fmt.Sprintf(`, "capture_requests": {"access_key_file": %q, "spn": %q, "rate": "100/s"}`, s.keyFile, s.spn.URL)
	}
	b := s.bf.build
	lazarus := fmt.Sprintf(`{"handler": "lazarus", "name": "site", "reload_interval": "50ms",
		"build": {"sources": [{"path": %q}], "dumps": [{"name": "db", "command": %q}], "key": %q, "site_url": "http://%s/", "carriers": 16},
		"audit": {"sources": [%q]%s}}`, b.Sources[0].Path, b.Dumps[0].Command, b.Key, addr, "cdx="+s.arch.URL, capture)
	cfg := fmt.Sprintf(`{"admin": {"disabled": true, "config": {"persist": false}}, "logging": {"logs": {"default": {"level": "ERROR"}}},
	"storage": {"module": "file_system", "root": %q},
	"apps": {"http": {"servers": {"t": {"listen": [%q], "automatic_https": {"disable": true},
	"routes": [{"match": [{"path": ["/metrics"]}], "handle": [{"handler": "metrics"}]},
		{"handle": [%s, {"handler": "file_server", "root": %q}]}]}}}}}`, storage, addr, lazarus, s.dir)
	if err := caddy.Load([]byte(cfg), true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { caddy.Stop() })
}

// added serves every page of the site once the build is done and
// returns the bytes the module added to them.
func (s *caddyCaptureSite) added(t *testing.T, addr string) int {
	t.Helper()
	waitUntil(t, 30*time.Second, "blocks on the root page", func() bool {
		_, body := get(t, "GET", "http://"+addr+"/", nil)
		return hasComments(body)
	})
	n := 0
	for p, orig := range s.bodies {
		_, body := get(t, "GET", "http://"+addr+p, nil)
		n += len(body) - len(orig)
	}
	return n
}

// metricLine waits for Caddy's /metrics to have a line starting with
// prefix and returns it.
func metricLine(t *testing.T, addr, prefix string, within time.Duration) string {
	t.Helper()
	var line string
	waitUntil(t, within, prefix, func() bool {
		_, body := get(t, "GET", "http://"+addr+"/metrics", nil)
		for l := range strings.SplitSeq(string(body), "\n") {
			if strings.HasPrefix(l, prefix) {
				line = l
				return true
			}
		}
		return false
	})
	return line
}

func waitUntil(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCaddyCaptureRequestsLightenTheBuild: in Caddy, a self-building
// handler with capture_requests plans its generation for those requests
// and adds fewer bytes to the same site's pages than one counting on the
// archives' own crawls; its capture loop then asks the Save Page Now
// stand-in, which captures the pages into the archive, and the
// generation's state goes from published to confirmed in the metrics;
// after a restart on the same storage the metrics say the same from the
// stored record.
func TestCaddyCaptureRequestsLightenTheBuild(t *testing.T) {
	s := newCaddyCaptureSite(t)
	own := freeAddr(t)
	s.run(t, own, t.TempDir(), false)
	ownAdded := s.added(t, own)
	metricLine(t, own, `caddy_lazarus_generation_state{site="site",state="published"} 1`, 10*time.Second)
	caddy.Stop()

	addr, storage := freeAddr(t), t.TempDir()
	s.run(t, addr, storage, true)
	reqAdded := s.added(t, addr)
	t.Logf("bytes added to the %d pages: %d counting on capture requests, %d on the archives' own crawls", len(s.bodies), reqAdded, ownAdded)
	if reqAdded >= ownAdded {
		t.Errorf("%d bytes added with capture requests, %d without: want fewer", reqAdded, ownAdded)
	}
	confirmed := metricLine(t, addr, `caddy_lazarus_generation_state_timestamp_seconds{archive="",site="site",state="confirmed"}`, 60*time.Second)
	metricLine(t, addr, `caddy_lazarus_generation_state{site="site",state="confirmed"} 1`, time.Second)
	requested := metricLine(t, addr, `caddy_lazarus_generation_state_timestamp_seconds{archive="wayback",site="site",state="requested"}`, time.Second)
	if len(s.spn.Requests()) == 0 {
		t.Fatal("Save Page Now was not asked")
	}
	caddy.Stop()

	// Expected: started again on the same storage, the first page served
	// loads the generation and the metrics show its recorded state.
	s.run(t, addr, storage, true)
	get(t, "GET", "http://"+addr+"/", nil)
	if again := metricLine(t, addr, `caddy_lazarus_generation_state_timestamp_seconds{archive="",site="site",state="confirmed"}`, 10*time.Second); again != confirmed {
		t.Errorf("after the restart %q, before %q", again, confirmed)
	}
	if again := metricLine(t, addr, `caddy_lazarus_generation_state_timestamp_seconds{archive="wayback",site="site",state="requested"}`, time.Second); again != requested {
		t.Errorf("after the restart %q, before %q", again, requested)
	}
	metricLine(t, addr, `caddy_lazarus_generation_state{site="site",state="confirmed"} 1`, time.Second)
}
