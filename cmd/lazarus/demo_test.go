package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/cmd/lazarus/internal/demo"
)

// TestDemo plays the whole story with the in-process Caddy and checks that it ends with every file
// verified, and that --keep keeps the evidence.
func TestDemo(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "kept")
	var out bytes.Buffer
	if err := demo.Run(context.Background(), demo.Options{Keep: keep, Out: &out, Serve: serveWithCaddy}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"8. Verify", "identical to the originals", "came back byte for byte"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("story lacks %q:\n%s", want, out.String())
		}
	}
	for _, p := range []string{"keys/owner.key", "archive/crawl.warc.gz", "recovered/recovery.json", "recovered/db"} {
		if _, err := os.Stat(filepath.Join(keep, p)); err != nil {
			t.Errorf("--keep: %v", err)
		}
	}
}

// TestDemoInterrupted: Ctrl-C or SIGTERM while the demo serves its site
// (pausing there, see installTestHooks) stops it: the exit code of the
// signal, a message in the demo's words, and no temporary directory
// left behind (it holds owner.key).
func TestDemoInterrupted(t *testing.T) {
	bin, err := exec.LookPath("lazarus")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  os.Signal
		code int
		want string
	}{
		{os.Interrupt, exitInterrupted, "lazarus: error: demo interrupted (interrupt signal received); the server was stopped and its temporary directory, keys included, was removed\n"},
		{syscall.SIGTERM, exitTerminated, "lazarus: error: demo interrupted (terminated signal received); the server was stopped and its temporary directory, keys included, was removed\n"},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "demo")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "LAZARUS_TEST_PAUSE_DEMO="+dir)
			p := startProc(t, cmd)
			p.waitFile(t, filepath.Join(dir, "ready"), 60*time.Second, "the demo never served its site")
			if keys, _ := filepath.Glob(filepath.Join(tmp, "lazarus-demo-*", "keys", "owner.key")); len(keys) != 1 {
				t.Fatalf("owner.key in the temporary directory: %v", keys)
			}
			p.signal(t, 200*time.Millisecond, c.sig)
			writeTestFile(t, filepath.Join(dir, "go"), "")
			if err := p.wait(t, 30*time.Second); exitCode(err) != c.code || p.stderr.String() != c.want {
				t.Errorf("exit %v, want %d; stderr:\n%s", err, c.code, p.stderr.String())
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("%s left in the temporary directory", left[0].Name())
			}
		})
	}
}
