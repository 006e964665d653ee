package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// Regression tests for a new user's second trial of lazarus status, one
// per item (numbered as in the trial's findings).

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

// TestStatusN12TimeFlagNamed: the shared time parser names the flag it
// parses: --as-of's errors say --as-of, --at's say --at.
func TestStatusN12TimeFlagNamed(t *testing.T) {
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

// TestStatusN12UnusableOutputIsUsage: an --html or --state path that
// cannot be written is a usage error (exit 2), found before the audit.
func TestStatusN12UnusableOutputIsUsage(t *testing.T) {
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

// TestStatusN9SourcesFailedText: when every source failed, the text
// shows the sources and the cause only, no outlook or notes; the JSON is
// whole.
func TestStatusN9SourcesFailedText(t *testing.T) {
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

// TestStatusN10AsOfSaid: an audit as of a past time says "as of TIME",
// not "now", when nothing is recoverable.
func TestStatusN10AsOfSaid(t *testing.T) {
	code, stdout, stderr := runStatusArgs(t, "--url", "https://example.org/", "--key", statusKeyFile(t), "--source", "dir="+t.TempDir(),
		"--no-live", "--as-of", "2020-01-01")
	const when = "as of 2020-01-01T23:59:59Z"
	if code != exitError || !strings.Contains(stderr, "no generation is recoverable from the archives "+when) ||
		!strings.Contains(stdout, "no generation is recoverable from the archives "+when) || strings.Contains(stdout+stderr, "archives now") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestPrintStatusN4N13: the outlook of a generation known only from the
// live site is unavailable, said so; a stripe's blocks read "8 (1
// needed)"; a cause of none yet is named.
func TestPrintStatusN4N13(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	r := &status.Report{Site: "https://example.org/", Now: now, Newest: "g2", Live: "g2",
		Sources: []status.SourceReport{{Name: "dir=crawl1", Captures: 8, Known: 8}},
		Generations: []status.Generation{{ID: "g1", Time: now, Recoverable: true, SegmentsRebuildable: true, ManifestArchived: true,
			Segments: []status.Segment{{Name: "app", K: 1, Stripes: 1, Complete: 1,
				PerStripe: []status.Stripe{{Need: 1, Combined: 8, Have: map[string]int{"dir=crawl1": 8}}}}}}},
		Assessment: &status.Assessment{Generation: "g2", Reason: status.AssessCarriersUnknown,
			Error: "which pages carry generation g2 is unknown without the serve history"}}
	var out bytes.Buffer
	printStatus(&out, r)
	text := out.String()
	for _, want := range []string{"weakest stripe 0: 8 (1 needed)\n",
		"Outlook unavailable: which pages carry generation g2 is unknown without the serve history\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, bad := range []string{"8 of 1", "never reaches", "model could not run"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q in:\n%s", bad, text)
		}
	}
	// Two sources: each one's count follows.
	r.Generations[0].Segments[0].PerStripe[0].Have = map[string]int{"wayback": 3, "commoncrawl": 5}
	out.Reset()
	printStatus(&out, r)
	if !strings.Contains(out.String(), "weakest stripe 0: 8 (1 needed): commoncrawl 5, wayback 3\n") {
		t.Errorf("per-source counts missing:\n%s", out.String())
	}
}
