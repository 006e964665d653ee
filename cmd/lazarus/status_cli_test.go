package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestStatusTimeErrorsNameTheirFlag: the shared time parser names the
// flag it parses: --as-of's errors say --as-of, --at's say --at.
func TestStatusTimeErrorsNameTheirFlag(t *testing.T) {
	for _, flag := range []string{"--at", "--as-of"} {
		_, err := parseTime(flag, "yesterday")
		if err == nil || !strings.HasPrefix(err.Error(), flag+` "yesterday": use 2026-01-31`) {
			t.Errorf("%s: %v", flag, err)
		}
	}
	code, _, stderr := runStatusArgs(t, "--url", "https://example.org/", "--key", statusKeyFile(t), "--source", "dir="+t.TempDir(),
		"--no-live", "--as-of", "yesterday")
	if code != exitUsage || !strings.Contains(stderr, `--as-of "yesterday": use`) || strings.Contains(stderr, "--at") {
		t.Fatalf("exit %d, stderr %q; want a usage error naming --as-of", code, stderr)
	}
}

// TestStatusUnwritableOutputIsUsageError: an --html or --state path that
// cannot be written is a usage error (exit 2), found before the audit.
func TestStatusUnwritableOutputIsUsageError(t *testing.T) {
	key := statusKeyFile(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, out := range [][]string{{"--html", "/nonexistent/x.html"}, {"--html", t.TempDir()}, {"--state", filepath.Join(file, "sub")}} {
		args := append([]string{"--url", "https://example.org/", "--key", key, "--source", "dir=" + t.TempDir(), "--no-live"}, out...)
		code, stdout, stderr := runStatusArgs(t, args...)
		if code != exitUsage || !strings.Contains(stderr, out[0]+" "+out[1]) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the path", out, code, stdout, stderr)
		}
	}
}

// TestStatusSourcesFailedShowsOnlyTheCause: when every source failed,
// the text shows the sources and the cause only, no outlook or notes;
// the JSON is whole.
func TestStatusSourcesFailedShowsOnlyTheCause(t *testing.T) {
	key := statusKeyFile(t)
	missing := "dir=" + filepath.Join(t.TempDir(), "typo")
	code, stdout, stderr := runStatusArgs(t, "--url", "https://example.org/", "--key", key, "--source", missing, "--no-live")
	if code != exitError || !strings.Contains(stderr, "source "+missing+": cannot be read") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, bad := range []string{"Outlook", "Note:", "never reaches", "Too little capture history", "had to be fetched", "problem:"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("%q in:\n%s", bad, stdout)
		}
	}
	if !strings.Contains(stdout, missing) || !strings.Contains(stdout, "Restore point: none, and not for what the archives hold: source "+missing) {
		t.Errorf("sources or cause missing:\n%s", stdout)
	}
	code, stdout, _ = runStatusArgs(t, "--url", "https://example.org/", "--key", key, "--source", missing, "--no-live", "--json")
	var rep status.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != exitError {
		t.Fatalf("--json: exit %d, %v", code, err)
	}
	if rep.Cause == nil || rep.Cause.Kind != status.CauseSourcesFailed || len(rep.Notes) == 0 || len(rep.Problems) == 0 {
		t.Fatalf("--json is not whole: cause %+v, notes %q, problems %q", rep.Cause, rep.Notes, rep.Problems)
	}
}

// TestStatusSaysAsOfWhenNothingRecoverable: an audit as of a past time
// says "as of TIME", not "now", when nothing is recoverable.
func TestStatusSaysAsOfWhenNothingRecoverable(t *testing.T) {
	code, stdout, stderr := runStatusArgs(t, "--url", "https://example.org/", "--key", statusKeyFile(t), "--source", "dir="+t.TempDir(),
		"--no-live", "--as-of", "2020-01-01")
	const when = "as of 2020-01-01T23:59:59Z"
	if code != exitError || !strings.Contains(stderr, "no generation is recoverable from the archives "+when) ||
		!strings.Contains(stdout, "no generation is recoverable from the archives "+when) || strings.Contains(stdout+stderr, "archives now") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
