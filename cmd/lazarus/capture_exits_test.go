package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// TestCaptureCLIExits: usage errors (a bad rate, margin or requests mode)
// exit 2 and send nothing; a refused
// key exits 1; a world-readable key file is warned about; the daily
// limit after a failed job exits 3 and says how many were sent.
func TestCaptureCLIExits(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{Daily: 1}, failRootForSPN)
	for name, args := range map[string][]string{
		"bad rate":        {"--access-key-file", s.iaKeys, "--rate", "12/day"},
		"negative margin": {"--access-key-file", s.iaKeys, "--margin", "-1"},
		"bad mode":        {"--requests", "sometimes"},
	} {
		if code, _, stderr := s.run(t, args...); code != exitUsage {
			t.Errorf("%s: exit %d, want 2\n%s", name, code, stderr)
		}
	}
	if n := len(s.spn.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
	bad := filepath.Join(t.TempDir(), "bad.keys")
	writeTestFile(t, bad, "AKEY:wrong-"+captureSecret+"\n")
	code, _, stderr := s.run(t, "--access-key-file", bad)
	if code != exitError || !strings.Contains(stderr, "the access key was refused by") || !strings.Contains(stderr, "archive.org/account/s3.php") || !strings.Contains(stderr, "accessible by other users") {
		t.Fatalf("refused key: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := s.run(t, "--access-key-file", s.iaKeys)
	if code != exitPartial || !strings.Contains(stdout, "failed     "+s.url) || !strings.Contains(stderr, "daily capture limit is reached after 1 request") {
		t.Fatalf("daily limit: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCaptureCLISourcesFailed: a dry run whose only source cannot be
// read exits 1 naming it, and plans nothing (text and JSON); with one
// of two sources failed, the plan is made and a warning names it.
func TestCaptureCLISourcesFailed(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{}, nil)
	missing := "warc=" + filepath.Join(t.TempDir(), "nonexistent")
	base := []string{"--url", s.url, "--key", s.serverKey, "--dry-run", "--site-rate", "600000", "--archive-rate", "600000"}
	code, stdout, stderr := runCaptureArgs(append(base, "--source", missing)...)
	if code != exitError || !strings.Contains(stderr, "source "+missing+": cannot be read") || strings.Contains(stdout, "Would ask for") {
		t.Fatalf("every source failed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCaptureArgs(append(base, "--source", missing, "--json")...)
	var rep struct {
		Plan     []any    `json:"plan"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitError || err != nil || len(rep.Plan) != 0 || !strings.Contains(stderr, missing) {
		t.Fatalf("every source failed, --json: exit %d (%v)\n%s\n%s", code, err, stdout, stderr)
	}
	both := append(base, "--source", "wayback="+s.archive.URL, "--source", missing)
	code, stdout, stderr = runCaptureArgs(both...)
	if code != exitOK || !strings.Contains(stderr, "lazarus: warning: source "+missing+": cannot be read") || !strings.Contains(stdout, "Would ask for") {
		t.Fatalf("one source failed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCaptureArgs(append(both, "--json")...)
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitOK || err != nil || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], missing) {
		t.Fatalf("one source failed, --json: exit %d (%v) warnings %q\n%s", code, err, rep.Warnings, stderr)
	}
}

// TestCaptureCLIWaitTooLong: Save Page Now answering the second
// submission 429 with Retry-After of three years stops the requests at
// once, the wait said. With the root page's job failed the generation is
// not safe: exit 3. With it captured the generation is recoverable (k is
// 1): exit 0, and a warning says the requests stopped.
func TestCaptureCLIWaitTooLong(t *testing.T) {
	throttle := archivetest.SPNConfig{PerWindow: 1, Window: time.Hour, RetryAfter: 99999999 * time.Second}
	const asked = "the archive asked to wait 1157 days 9 hours; try later"
	s := newCaptureSite(t, throttle, failRootForSPN)
	code, stdout, stderr := s.run(t, "--access-key-file", s.iaKeys)
	if n := len(s.spn.Submissions()); n != 2 {
		t.Fatalf("%d submissions, want 2 (the second throttled)\n%s", n, stdout)
	}
	if code != exitPartial || !strings.Contains(stderr, asked) ||
		!regexp.MustCompile(`capture requests: 1 accepted, 0 captured, 2 failed(, \d+ abandoned or not sent)?;`).MatchString(stdout) {
		t.Fatalf("root failed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	s = newCaptureSite(t, throttle, nil)
	code, stdout, stderr = s.run(t, "--access-key-file", s.iaKeys)
	if code != exitOK || !strings.Contains(stderr, "lazarus: warning: requests stopped: spn: "+asked) || !strings.Contains(stdout, "1 accepted, 1 captured, 1 failed") {
		t.Fatalf("root captured: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCaptureCLIFailedJobs: when every job fails, the summary says they
// were accepted and failed, none captured.
func TestCaptureCLIFailedJobs(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.UserAgent(), "lazarus") { // every Save Page Now fetch fails
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	code, stdout, stderr := s.run(t, "--access-key-file", s.iaKeys)
	n := len(s.spn.Submissions())
	want := fmt.Sprintf("%d capture requests: %d accepted, 0 captured, %d failed;", n, n, n)
	if n < 2 || code != exitPartial || !strings.Contains(stdout, want) {
		t.Fatalf("exit %d, want %q\n%s\n%s", code, want, stdout, stderr)
	}
}

// TestCaptureCLIPlainHTTP: --spn over plain http to a host that is not
// loopback is a usage error (the secret would go in clear); nothing is
// sent.
func TestCaptureCLIPlainHTTP(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{}, nil)
	code, _, stderr := s.run(t, "--access-key-file", s.iaKeys, "--spn", "http://example.invalid:9")
	if code != exitUsage || !strings.Contains(stderr, "use https") || len(s.spn.Requests()) != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}
