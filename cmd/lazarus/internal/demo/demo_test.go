package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestKeepMustBeEmpty: the demo never writes into a directory holding
// something else.
func TestKeepMustBeEmpty(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "precious"), []byte("x"), 0o644)
	serve := func(string, string, string) (string, func() error, error) {
		t.Fatal("the demo started serving in a non-empty directory")
		return "", nil, nil
	}
	if err := Run(context.Background(), Options{Keep: dir, Serve: serve}); err == nil {
		t.Fatal("demo ran in a non-empty directory")
	}
}

// TestStoppedCleansUp: a demo stopped by its context (Ctrl-C, SIGTERM)
// returns the context's cause, stops the server and removes its
// temporary directory, keys included.
func TestStoppedCleansUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("terminated signal received")
	stopped := false
	serve := func(site, bundle, storage string) (string, func() error, error) {
		if _, err := os.Stat(filepath.Join(filepath.Dir(site), "keys", "owner.key")); err != nil {
			t.Errorf("serving before the keys exist: %v", err)
		}
		cancel(cause)
		return "http://127.0.0.1:1/", func() error { stopped = true; return nil }, nil
	}
	err := Run(ctx, Options{Serve: serve})
	if !errors.Is(err, cause) {
		t.Fatalf("got %v, want the context's cause", err)
	}
	if !stopped {
		t.Error("the server was not stopped")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("%s left behind", left[0].Name())
	}
}
