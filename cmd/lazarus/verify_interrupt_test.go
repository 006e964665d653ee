package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// init installs, in the lazarus the scripts run, a pause just before the
// trial restore: LAZARUS_TEST_PAUSE_VERIFY=DIR makes verify create
// DIR/ready and wait for DIR/go.
func init() {
	if dir := os.Getenv("LAZARUS_TEST_PAUSE_VERIFY"); dir != "" {
		testHookVerify = func(o *verify.Options) {
			next := o.Progress
			o.Progress = func(p verify.Progress) {
				next(p)
				if p.Phase == "restore" {
					pause(dir)
				}
			}
		}
	}
}

// TestVerifyInterrupted: Ctrl-C or SIGTERM during verify's trial restore
// stops it: exit 130 or 143, and nothing is left in the temporary
// directory (no decrypted file).
func TestVerifyInterrupted(t *testing.T) {
	bin, err := exec.LookPath("lazarus")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, exitInterrupted}, {syscall.SIGTERM, exitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := interruptSite(t)
			srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "site"))))
			defer srv.Close()
			inject := exec.Command(bin, "inject", "--site", "site", "--site-url", srv.URL+"/", "--key", "keys/server.key",
				"--state", "state", "--include", "app")
			inject.Dir = dir
			if out, err := inject.CombinedOutput(); err != nil {
				t.Fatalf("inject: %v\n%s", err, out)
			}
			tmp, pauseDir := t.TempDir(), t.TempDir()
			cmd := exec.Command(bin, "verify", "--url", srv.URL+"/", "--key", "keys/owner.key", "--rate", "600000")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "LAZARUS_TEST_PAUSE_VERIFY="+pauseDir)
			p := startProc(t, cmd)
			p.waitFile(t, filepath.Join(pauseDir, "ready"), 30*time.Second, "verify never reached the trial restore")
			if left, _ := os.ReadDir(tmp); len(left) == 0 {
				t.Fatal("verify keeps nothing in TMPDIR: the test proves nothing")
			}
			p.signal(t, 300*time.Millisecond, c.sig) // the signal is handled before the restore starts
			writeTestFile(t, filepath.Join(pauseDir, "go"), "")
			if err := p.wait(t, 30*time.Second); exitCode(err) != c.code {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, c.code, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), "lazarus: error: interrupted (") {
				t.Errorf("stderr:\n%s", p.stderr.String())
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %v", left)
			}
		})
	}
}
