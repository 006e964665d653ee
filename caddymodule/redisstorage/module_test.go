package redisstorage

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
)

// TestModuleInCaddy: a Caddy configuration naming the module loads, and
// Caddy's storage is then this Redis: a value Caddy stores is in Redis
// under key_prefix, through a second client. A password file that does
// not exist fails the load with an error naming it.
func TestModuleInCaddy(t *testing.T) {
	srv := redistest.Start(t)
	cfg := fmt.Sprintf(`{"admin":{"disabled":true,"config":{"persist":false}},"storage":{"module":"lazarus_redis","address":%q,"key_prefix":"t1","lock_ttl":"2s"}}`, srv.Addr)
	if err := caddy.Load([]byte(cfg), true); err != nil {
		t.Fatal(err)
	}
	defer caddy.Stop()
	st := caddy.ActiveContext().Storage()
	if _, ok := st.(*Storage); !ok {
		t.Fatalf("Caddy's storage is %T", st)
	}
	ctx := context.Background()
	if err := st.Store(ctx, "lazarus/x/current", []byte("gen")); err != nil {
		t.Fatal(err)
	}
	other := New(srv.Client(t), Options{Prefix: "t1"})
	if v, err := other.Load(ctx, "lazarus/x/current"); err != nil || string(v) != "gen" {
		t.Errorf("through another client: %q, %v", v, err)
	}
	if err := st.Lock(ctx, "l"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := other.TryLock(ctx, "l"); ok {
		t.Error("a lock Caddy's storage holds was taken through another client")
	}
	st.Unlock(ctx, "l")

	bad := fmt.Sprintf(`{"admin":{"disabled":true,"config":{"persist":false}},"storage":{"module":"lazarus_redis","address":%q,"password_file":%q}}`,
		srv.Addr, filepath.Join(t.TempDir(), "missing"))
	if err := caddy.Load([]byte(bad), true); err == nil || !strings.Contains(err.Error(), "password_file") {
		t.Errorf("loading with a missing password file: %v", err)
	}
}
