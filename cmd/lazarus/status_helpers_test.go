package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// statusKeyFile writes a new server key and returns its path.
func statusKeyFile(t *testing.T) string {
	t.Helper()
	_, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "server.key")
	if err := os.WriteFile(p, server.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runStatusArgs runs lazarus status and returns its exit code, stdout
// and stderr.
func runStatusArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runStatus(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
