package main

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// init makes the Save Page Now client of the lazarus the tests run poll
// every few milliseconds when LAZARUS_TEST_CAPTURE_FAST is set.
func init() {
	if os.Getenv("LAZARUS_TEST_CAPTURE_FAST") != "" {
		capturePollStart, capturePollMax = time.Millisecond, 5*time.Millisecond
	}
}

// TestCaptureInterrupted: Ctrl-C or SIGTERM while jobs are pending (the
// server never finishes them) stops capture at once: exit 130 or 143,
// and the pending jobs are said to be abandoned.
func TestCaptureInterrupted(t *testing.T) {
	bin, err := exec.LookPath("lazarus")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, exitInterrupted}, {syscall.SIGTERM, exitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			s := newCaptureSite(t, archivetest.SPNConfig{PendingPolls: 1 << 30}, nil)
			cmd := exec.Command(bin, "capture", "--url", s.url, "--key", s.serverKey, "--spn", s.spn.URL, "--source", "wayback="+s.archive.URL,
				"--site-rate", "600000", "--archive-rate", "600000", "--access-key-file", s.iaKeys)
			cmd.Env = append(os.Environ(), "LAZARUS_TEST_CAPTURE_FAST=1")
			p := startProc(t, cmd)
			p.waitFor(t, func() bool { return polled(s.spn) }, 30*time.Second, "no job was polled")
			p.signal(t, 0, c.sig)
			if err := p.wait(t, 30*time.Second); exitCode(err) != c.code {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, c.code, p.stderr.String())
			}
			if stderr := p.stderr.String(); !strings.Contains(stderr, "lazarus: error: interrupted (") || !strings.Contains(stderr, "abandoned") {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}

// polled reports whether a job status was asked for.
func polled(s *archivetest.SPN) bool {
	for _, r := range s.Requests() {
		if r.Method == http.MethodGet {
			return true
		}
	}
	return false
}
