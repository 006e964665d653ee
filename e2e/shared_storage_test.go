package e2e

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/porttest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// wordpressSlim keeps WordPress's top-level files, wp-content and the PHP
// files directly in wp-admin (and every symbolic link, every directory):
// a server side the manual's 16 pages carry at 256 KiB each, three times.
var wordpressSlim = regexp.MustCompile(`^(wp-admin/[^/]+|wp-includes)/`)

// Deadlines of the shared-storage test; they bound waits, they assert
// nothing about speed.
const (
	caddyBuildTimeout = 5 * time.Minute  // go build ./cmd/caddy with a cold cache
	firstBuildTimeout = 60 * time.Second // the module's first background build
	stopTimeout       = 10 * time.Second // a Caddy process's graceful exit
)

// blockMark starts every block comment the module inserts.
const blockMark = "<!-- lazarus block 1"

// caddyProc is one `caddy run` process the test started.
type caddyProc struct {
	name   string // "A" or "B"
	base   string // http://127.0.0.1:PORT/
	log    string // its standard output and error
	cmd    *exec.Cmd
	exited chan struct{}
}

// tail returns the end of the process's log.
func (c *caddyProc) tail() string {
	b, _ := os.ReadFile(c.log)
	return e2etest.Tail(b)
}

// buildCaddy builds cmd/caddy (Caddy with the Lazarus module) into a new
// directory and returns the binary's path.
func buildCaddy(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not in PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "caddy")
	ctx, cancel := context.WithTimeout(context.Background(), caddyBuildTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, gobin, "build", "-o", bin, "./cmd/caddy")
	cmd.Dir = ".." // the module root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/caddy: %v\n%s", err, e2etest.Tail(out))
	}
	t.Logf("built cmd/caddy in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// caddyQuote quotes a Caddyfile token.
func caddyQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// sharedSite is what the instances serve and build from.
type sharedSite struct {
	storage string // Caddy's storage directory, shared
	site    string // the manual, served by file_server
	key     string // server.key
	siteURL string // the public URL recorded in manifests (instance A)
	srv     serverSide
	// storageOpt replaces the global storage option (file_system storage);
	// every the build interval (1h); dump the database's dump command
	// (srv.dumpCommand()).
	storageOpt, every, dump string
}

// caddyfile is the configuration of the instance listening on port: the
// module in self-building mode, state in the shared storage.
func (s sharedSite) caddyfile(port int) string {
	storage := "storage file_system " + caddyQuote(s.storage)
	if s.storageOpt != "" {
		storage = s.storageOpt
	}
	every, dump := cmp.Or(s.every, "1h"), cmp.Or(s.dump, s.srv.dumpCommand())
	return fmt.Sprintf(`{
	admin off
	persist_config off
	%s
}

http://127.0.0.1:%d {
	encode gzip
	lazarus {
		name e2e
		source %s
		dump db %s
		key %s
		site_url %s
		every %s
		reload_interval 200ms
		page_budget 256KiB
	}
	file_server {
		root %s
	}
}
`, storage, port, caddyQuote(s.srv.WordPress), caddyQuote(dump),
		caddyQuote(s.key), s.siteURL, every, caddyQuote(s.site))
}

// startCaddyProc runs `caddy run` with config in its own home directory
// (the builder's local cache is under XDG_DATA_HOME) and stops it when
// the test ends, printing the end of its log if the test failed.
func startCaddyProc(t *testing.T, bin, name string, port int, config string, env ...string) *caddyProc {
	t.Helper()
	home := t.TempDir()
	file := filepath.Join(home, "Caddyfile")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &caddyProc{name: name, base: fmt.Sprintf("http://127.0.0.1:%d/", port), log: filepath.Join(home, "caddy.log"), exited: make(chan struct{})}
	logf, err := os.Create(c.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", file, "--adapter", "caddyfile")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	cmd.Env = append(cmd.Env, env...)
	c.cmd = cmd
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting caddy %s: %v", name, err)
	}
	go func() { cmd.Wait(); logf.Close(); close(c.exited) }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("caddy %s log:\n%s", name, c.tail())
		}
	})
	t.Cleanup(func() { c.stop(t, cmd) })
	return c
}

// stop interrupts the process (a graceful exit) and kills it if it has
// not exited within stopTimeout.
func (c *caddyProc) stop(t *testing.T, cmd *exec.Cmd) {
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-c.exited:
	case <-time.After(stopTimeout):
		t.Errorf("caddy %s did not exit within %v of an interrupt; killing it", c.name, stopTimeout)
		cmd.Process.Kill()
		<-c.exited
	}
}

// identityClient asks for and gets identity bodies (no Accept-Encoding).
func identityClient(t *testing.T) *http.Client {
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// servedPage is one response of an instance.
type servedPage struct {
	body         []byte
	etag, lastMo string
}

// getPage fetches base+path and requires a 200 identity response.
func getPage(c *http.Client, base, path string) (servedPage, error) {
	resp, err := c.Get(strings.TrimSuffix(base, "/") + path)
	if err != nil {
		return servedPage{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return servedPage{}, fmt.Errorf("GET %s: %w", resp.Request.URL, err)
	case resp.StatusCode != http.StatusOK:
		return servedPage{}, fmt.Errorf("GET %s: %s", resp.Request.URL, resp.Status)
	case resp.Header.Get("Content-Encoding") != "":
		return servedPage{}, fmt.Errorf("GET %s: Content-Encoding %q without asking for it", resp.Request.URL, resp.Header.Get("Content-Encoding"))
	}
	return servedPage{body: body, etag: resp.Header.Get("ETag"), lastMo: resp.Header.Get("Last-Modified")}, nil
}

// waitForBlocks polls GET / on c until the page carries blocks: the first
// generation is built in the background after Caddy starts.
func waitForBlocks(t *testing.T, client *http.Client, c *caddyProc) {
	t.Helper()
	start := time.Now()
	deadline := time.After(firstBuildTimeout)
	var last error
	for {
		p, err := getPage(client, c.base, "/")
		if err == nil && bytes.Contains(p.body, []byte(blockMark)) {
			t.Logf("caddy %s serves blocks %v after the wait began", c.name, time.Since(start).Round(time.Millisecond))
			return
		}
		if err == nil {
			err = fmt.Errorf("GET / on %s: %d bytes without a block", c.name, len(p.body))
		}
		last = err
		select {
		case <-c.exited:
			t.Fatalf("caddy %s exited:\n%s", c.name, c.tail())
		case <-deadline:
			t.Fatalf("caddy %s serves no blocks after %v: %v", c.name, firstBuildTimeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// samePage fails the test unless two responses for path are identical.
func samePage(t *testing.T, path string, a, b servedPage, how string) {
	t.Helper()
	switch {
	case !bytes.Equal(a.body, b.body):
		t.Errorf("%s %s: bodies differ (%d and %d bytes), first at byte %d", path, how, len(a.body), len(b.body), firstDiff(a.body, b.body))
	case a.etag == "" || a.etag != b.etag:
		t.Errorf("%s %s: ETags %q and %q", path, how, a.etag, b.etag)
	case a.lastMo != b.lastMo:
		t.Errorf("%s %s: Last-Modified %q and %q", path, how, a.lastMo, b.lastMo)
	case !bytes.Contains(a.body, []byte(blockMark)):
		t.Errorf("%s %s: no block", path, how)
	}
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// firstServe asks for every page for the first time: a third first from
// A, a third first from B, a third from both at once (the two processes
// race for the placement record). It returns what each instance served,
// by path.
func firstServe(t *testing.T, client *http.Client, a, b *caddyProc, urls []string) (fromA, fromB map[string]servedPage) {
	t.Helper()
	fromA, fromB = map[string]servedPage{}, map[string]servedPage{}
	for i, u := range urls {
		var pa, pb servedPage
		var ea, eb error
		switch i % 3 {
		case 0:
			pa, ea = getPage(client, a.base, u)
			pb, eb = getPage(client, b.base, u)
		case 1:
			pb, eb = getPage(client, b.base, u)
			pa, ea = getPage(client, a.base, u)
		default:
			var wg sync.WaitGroup
			wg.Go(func() { pa, ea = getPage(client, a.base, u) })
			wg.Go(func() { pb, eb = getPage(client, b.base, u) })
			wg.Wait()
		}
		if ea != nil || eb != nil {
			t.Fatalf("%s: A: %v, B: %v", u, ea, eb)
		}
		fromA[u], fromB[u] = pa, pb
	}
	return fromA, fromB
}

// checkIdentical serves every page from both instances, then again from
// both in the opposite order, and fails unless all four responses of each
// page are the same. It returns the bytes of comments added to all pages.
func checkIdentical(t *testing.T, client *http.Client, a, b *caddyProc, site string, urls []string) int {
	t.Helper()
	fromA, fromB := firstServe(t, client, a, b, urls)
	added := 0
	for _, u := range urls {
		samePage(t, u, fromA[u], fromB[u], "first from A and B")
		againB, err := getPage(client, b.base, u)
		if err != nil {
			t.Fatal(err)
		}
		againA, err := getPage(client, a.base, u)
		if err != nil {
			t.Fatal(err)
		}
		samePage(t, u, fromA[u], againB, "from A, then again from B")
		samePage(t, u, fromB[u], againA, "from B, then again from A")
		added += len(fromA[u].body) - siteFileSize(t, site, u)
	}
	if t.Failed() {
		t.FailNow()
	}
	return added
}

// siteFileSize is the size of the file the site serves at path.
func siteFileSize(t *testing.T, site, path string) int {
	t.Helper()
	if strings.HasSuffix(path, "/") {
		path += "index.html"
	}
	info, err := os.Stat(filepath.Join(site, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return int(info.Size())
}

// placementRecords counts the pages with a placement record in storage.
func placementRecords(storage string) int {
	recs, _ := filepath.Glob(filepath.Join(storage, "lazarus", "e2e", "placement", "*", "pages", "*"))
	return len(recs)
}

// checkLogs fails the test if a process logged an error, or if more
// than one generation was built: the instance that finds a fresh build in
// the shared storage must pick it up, not build again.
func checkLogs(t *testing.T, storage string, procs ...*caddyProc) {
	t.Helper()
	builds := 0
	for _, c := range procs {
		b, err := os.ReadFile(c.log)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(b)) {
			if strings.Contains(line, `"level":"error"`) {
				t.Errorf("caddy %s logged an error: %s", c.name, line)
			}
			if strings.Contains(line, `"msg":"built lazarus generation"`) {
				builds++
			}
		}
	}
	gens, _ := filepath.Glob(filepath.Join(storage, "lazarus", "e2e", "bundle", "generations", "*"))
	if builds != 1 || len(gens) != 1 {
		t.Errorf("%d builds logged and %d generations in storage, want one of each", builds, len(gens))
	}
}

// writeServerKey makes a key pair, writes server.key (0600) and returns
// its path and the owner key.
func writeServerKey(t *testing.T) (string, []byte) {
	t.Helper()
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "server.key")
	if err := os.WriteFile(path, server.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, owner.Marshal()
}

// TestSharedStorage: two Caddy processes with the module in self-building
// mode share one storage directory. The first build happens in the
// background; pages served first by either instance (or by both at once)
// get the same blocks on both, byte for byte with the same ETag. wget
// mirrors each instance into identical trees, and every segment rebuilds
// byte-identical from A's WARC and from B's mirror.
func TestSharedStorage(t *testing.T) {
	needMaterial(t)
	needTool(t, "wget")
	if e2etest.RaceEnabled {
		t.Skip("megabytes of real material are too slow under the race detector")
	}
	bin := buildCaddy(t)
	site, urls := copyManual(t)
	srv := newServerSide(t, wordpressSlim)
	files, links, size := treeStats(t, srv.WordPress)
	t.Logf("site: %d pages; server side: WordPress %d files (%d bytes) and %d symlinks, a %d-byte sqlite3 dump",
		len(urls), files, size, links, len(srv.Dump))
	key, owner := writeServerKey(t)
	portA, portB := porttest.FreePort(t), porttest.FreePort(t)
	s := sharedSite{storage: t.TempDir(), site: site, key: key, siteURL: fmt.Sprintf("http://127.0.0.1:%d/", portA), srv: srv}

	start := time.Now()
	a := startCaddyProc(t, bin, "A", portA, s.caddyfile(portA))
	b := startCaddyProc(t, bin, "B", portB, s.caddyfile(portB))
	client := identityClient(t)
	waitForBlocks(t, client, a)
	waitForBlocks(t, client, b)
	t.Logf("both instances serve the first generation %v after start", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	added := checkIdentical(t, client, a, b, site, urls)
	t.Logf("%d pages identical on A and B (%d bytes of comments, %d placement records) in %v",
		len(urls), added, placementRecords(s.storage), time.Since(start).Round(time.Millisecond))

	work := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start = time.Now()
	warc := wgetMirror(t, a.base, filepath.Join(work, "a"))
	wgetMirror(t, b.base, filepath.Join(work, "b"))
	t.Logf("crawled both instances in %v", time.Since(start).Round(time.Millisecond))
	needPages(t, filepath.Join(work, "a", "mirror"), len(urls))
	sameTree(t, filepath.Join(work, "a", "mirror"), filepath.Join(work, "b", "mirror"))
	checkLogs(t, s.storage, a, b)
	t.Run("warc-A", func(t *testing.T) { srv.check(t, recoverInto(t, owner, source.WARCSource{Path: warc})) })
	t.Run("mirror-B", func(t *testing.T) {
		srv.check(t, recoverInto(t, owner, source.DirSource{Dir: filepath.Join(work, "b", "mirror")}))
	})
}
