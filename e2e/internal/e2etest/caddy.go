package e2etest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile" // the Caddyfile adapter
	_ "github.com/caddyserver/caddy/v2/modules/standard"          // file_server, encode, php_fastcgi, file_system storage
	_ "github.com/lazarus-preserve/lazarus/caddymodule"           // http.handlers.lazarus
)

// RunCaddyfile starts an in-process Caddy from a Caddyfile (its global
// options block is added: admin off, no automatic HTTPS, storage in
// storage) and returns a function that stops it; it is stopped when the
// test ends too.
func RunCaddyfile(t *testing.T, storage, body string) (stop func()) {
	t.Helper()
	text := fmt.Sprintf("{\n\tadmin off\n\tpersist_config off\n\tauto_https off\n\tlog {\n\t\tlevel ERROR\n\t}\n\tstorage file_system %s\n}\n%s", storage, body)
	raw, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil {
		t.Fatalf("Caddyfile: %v\n%s", err, text)
	}
	for _, w := range warnings {
		if !strings.Contains(w.Message, "not formatted") {
			t.Logf("Caddyfile: %s", w.String())
		}
	}
	if err := caddy.Load(raw, true); err != nil {
		t.Fatalf("starting Caddy: %v", err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			if err := caddy.Stop(); err != nil {
				t.Errorf("stopping Caddy: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// CountGenerations counts the generations the module published in
// storage.
func CountGenerations(t *testing.T, storage string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(storage, "lazarus", "*", "published", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// WaitGenerations waits up to two minutes for n generations in storage.
func WaitGenerations(t *testing.T, storage string, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); CountGenerations(t, storage) < n; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d generations built in 2 minutes", n)
		}
	}
	time.Sleep(time.Second) // the handler's reload_interval picks it up
}
