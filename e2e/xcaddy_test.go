package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
)

const (
	// readmeModule is the module path the README (Install) and
	// docs/CADDY.md give to xcaddy --with.
	readmeModule = "github.com/lazarus-preserve/lazarus"
	// xcaddyTimeout bounds `xcaddy build`: it resolves the modules and
	// compiles Caddy with its standard modules, which takes about 30
	// seconds once setup.sh warmed Go's build cache with xcaddy's flags
	// and about 8 minutes on two cores when the cache is cold.
	xcaddyTimeout = 15 * time.Minute
)

// needXcaddy returns the path of the xcaddy that setup.sh installed into
// the cache (or one in PATH), or skips the test.
func needXcaddy(t *testing.T) string {
	t.Helper()
	if p := filepath.Join(e2etest.CacheDir(), "bin", "xcaddy"); isExecutable(p) {
		return p
	}
	if p, err := exec.LookPath("xcaddy"); err == nil {
		return p
	}
	t.Skipf("xcaddy is not installed (not in %s nor in PATH); %s", filepath.Join(e2etest.CacheDir(), "bin"), e2etest.SetupHint)
	return ""
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

// caddyVersion is the Caddy version this module's go.mod requires: the
// xcaddy build uses it (CADDY_VERSION) rather than whatever is latest, so
// the test needs no new downloads and does not change under our feet.
func caddyVersion(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/caddyserver/caddy/v2")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m github.com/caddyserver/caddy/v2: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// goproxy serves GOPROXY for the xcaddy build. xcaddy runs `go get
// github.com/lazarus-preserve/lazarus` without a version; with the local
// replacement the go command takes the module from this checkout when the
// proxy says the module does not exist (404, what proxy.golang.org answers
// for a module it never saw), but a proxy that refuses instead (403) or an
// unreachable VCS stops the build, whatever proxies follow. So this local
// proxy answers 404 for this module and passes every other request
// (modules, checksum database) to the first proxy in `go env GOPROXY`;
// modules already in the cache are read from it as usual.
func goproxy(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env GOPROXY: %v", err)
	}
	var upstream *httputil.ReverseProxy
	for _, p := range strings.FieldsFunc(strings.TrimSpace(string(out)), func(r rune) bool { return r == ',' || r == '|' }) {
		if u, err := url.Parse(p); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
			upstream = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
			break
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if upstream == nil || strings.HasPrefix(r.URL.Path, "/"+readmeModule+"/@") {
			http.NotFound(w, r)
			return
		}
		upstream.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestXcaddyBuild: the README's (and docs/CADDY.md's) `xcaddy build
// --with github.com/lazarus-preserve/lazarus`, with this checkout as the local
// replacement, builds a Caddy that lists http.handlers.lazarus and
// caddy.storage.lazarus_redis and adapts
// a Caddyfile using the lazarus directive (serving a bundle, and building
// with site_url taken from the site address).
func TestXcaddyBuild(t *testing.T) {
	xcaddy := needXcaddy(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not in PATH: %v", err)
	}
	if testing.Short() {
		t.Skip("xcaddy builds all of Caddy; skipped in -short mode")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "caddy")
	ctx, cancel := context.WithTimeout(context.Background(), xcaddyTimeout)
	defer cancel()
	version := caddyVersion(t, root)
	cmd := exec.CommandContext(ctx, xcaddy, "build", "--with", readmeModule+"="+root, "--output", bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CADDY_VERSION="+version, "GOPROXY="+goproxy(t))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xcaddy build %s --with %s=%s: %v\n%s", version, readmeModule, root, err, e2etest.Tail(out))
	}
	t.Logf("xcaddy build (Caddy %s) took %v", version, time.Since(start).Round(time.Millisecond))

	mods, err := exec.Command(bin, "list-modules").CombinedOutput()
	if err != nil {
		t.Fatalf("caddy list-modules: %v\n%s", err, e2etest.Tail(mods))
	}
	for _, m := range []string{"http.handlers.lazarus", "caddy.storage.lazarus_redis"} {
		if !strings.Contains("\n"+string(mods), "\n"+m+"\n") {
			t.Errorf("caddy list-modules does not list %s:\n%s", m, e2etest.Tail(mods))
		}
	}

	caddyfile := filepath.Join(dir, "Caddyfile")
	config := `example.org {
	encode gzip
	lazarus {
		bundle /srv/bundle
	}
	file_server
}

http://shop.example.org {
	lazarus {
		source /srv/shop
		key /etc/lazarus/server.key
	}
	reverse_proxy 127.0.0.1:9000
}
`
	if err := os.WriteFile(caddyfile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	adapted, err := exec.Command(bin, "adapt", "--config", caddyfile, "--adapter", "caddyfile").Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += "\n" + string(ee.Stderr)
		}
		t.Fatalf("caddy adapt of a Caddyfile with lazarus: %s", msg)
	}
	var cfg any
	if err := json.Unmarshal(adapted, &cfg); err != nil {
		t.Fatalf("caddy adapt printed no JSON (%v):\n%s", err, e2etest.Tail(adapted))
	}
	for _, want := range []string{`"bundle":"/srv/bundle"`, `"site_url":"http://shop.example.org/"`} {
		if !strings.Contains(string(adapted), want) {
			t.Errorf("the adapted config lacks %s:\n%s", want, e2etest.Tail(adapted))
		}
	}
}
