package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// TestPlannedRequestsNeedKeysOrEvidence: inject counts on capture
// requests only when the config has a [capture] table that makes them:
// with keys, from a prior of one in two until requests are recorded,
// then as measured (a key file capture cannot read counts as none), not
// after the keys were refused; without keys, only once requests were
// recorded and
// some taken, and not after a refusal; never with requests off. Each
// refusal to count says why.
func TestPlannedRequestsNeedKeysOrEvidence(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	record := func(keyed bool, sent, taken int) *genstate.Record {
		return &genstate.Record{Generations: []genstate.Generation{{ID: "g", Requested: []genstate.Request{{Archive: "wayback", Keyed: keyed, Sent: sent, Taken: taken}}}}}
	}
	refused := record(false, 40, 30)
	refused.KeysRequired = map[string]time.Time{"wayback": now.Add(-48 * time.Hour)}
	keyRefused := record(true, 30, 27)
	keyRefused.KeyRefused = map[string]time.Time{"wayback": now.Add(-24 * time.Hour)}
	keyFile := filepath.Join(t.TempDir(), "ia.keys")
	if err := os.WriteFile(keyFile, []byte("AKEY:SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := captureConfig{AccessKeyFile: keyFile, Wait: "1h"}
	for _, c := range []struct {
		name     string
		table    bool
		cc       captureConfig
		rec      *genstate.Record
		success  float64 // 0: none counted on
		attempts int
		note     string
	}{
		{"no [capture] table", false, keys, record(true, 0, 0), 0, 0, ""},
		{"requests off", true, captureConfig{Requests: "off", AccessKeyFile: keyFile}, record(true, 0, 0), 0, 0, "capture requests are off"},
		{"key file missing", true, captureConfig{AccessKeyFile: keyFile + ".missing"}, record(true, 0, 0), 0, 0, "capture.access_key_file cannot be used"},
		{"keys, none recorded", true, keys, record(true, 0, 0), 0.5, 3, ""},
		{"keys, 30 sent, 27 taken", true, keys, record(true, 30, 27), (27 + 5.0) / 40, 3, ""},
		{"keys refused yesterday", true, keys, keyRefused, 0, 0, "refused the keys in access_key_file on 2026-11-27"},
		{"keys, wait 0s", true, captureConfig{AccessKeyFile: keyFile}, record(true, 0, 0), 0.5, 1, ""},
		{"keyed without keys", true, captureConfig{Requests: "keyed"}, record(true, 0, 0), 0, 0, "access_key_file is not set"},
		{"no keys, none recorded", true, captureConfig{}, record(false, 0, 0), 0, 0, "once 10 are recorded"},
		{"no keys, all refused", true, captureConfig{}, record(false, 12, 0), 0, 0, "once 10 are recorded"},
		{"no keys, refused 2 days ago", true, captureConfig{}, refused, 0, 0, "refused requests without keys on 2026-11-26"},
		{"no keys, 20 sent, 15 taken", true, captureConfig{}, record(false, 20, 15), 0.75, 1, ""},
	} {
		cfg := &injectConfig{Capture: c.cc, captureTable: c.table}
		q, note := plannedRequests(cfg, c.rec, now)
		switch {
		case c.success == 0 && q != nil:
			t.Errorf("%s: counted on %+v", c.name, q)
		case c.success > 0 && (q == nil || q.Success != c.success || q.Attempts != c.attempts || q.Horizon != injector.DefaultRequestsHorizon):
			t.Errorf("%s: %+v (%q), want success %v, %d attempts", c.name, q, note, c.success, c.attempts)
		case !strings.Contains(note, c.note) || c.note == "" && note != "":
			t.Errorf("%s: note %q, want %q", c.name, note, c.note)
		}
	}
}

// TestInjectPlansLighterForCaptureRequests: with a [capture] table and
// keys, inject's plan counts on capture's requests within a day (three
// per page with wait = "1h") and adds fewer bytes than the plan for the
// archives' own crawls; its report and output say what it assumed, and
// the plan without requests says what counting on them would change.
func TestInjectPlansLighterForCaptureRequests(t *testing.T) {
	d := newDeploySite(t)
	run := func(table string) (injector.Report, string) {
		t.Helper()
		conf := filepath.Join(t.TempDir(), "lazarus.toml")
		if err := os.WriteFile(conf, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--config", conf, "--site", d.s.Pages(), "--site-url", d.url, "--key", d.server, "--include", d.s.Path("src/app"),
			"--state", t.TempDir(), "--dry-run"}
		var stdout, stderr bytes.Buffer
		if code := runInject(append(args, "--json"), &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var r injector.Report
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		stdout.Reset()
		if code := runInject(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return r, stdout.String()
	}
	added := func(r injector.Report) (n int) {
		for _, p := range r.Pages {
			n += p.AddedBytes
		}
		return n
	}
	own, ownText := run("")
	req, reqText := run("[capture]\naccess_key_file = \"" + d.ia + "\"\nwait = \"1h\"\n")
	if own.Requests != nil || req.Requests == nil || req.Requests.Attempts != 3 || req.Requests.Success != injector.PriorSuccess || req.Requests.Horizon != 24*time.Hour {
		t.Fatalf("requests assumed: without a [capture] table %+v, with one %+v", own.Requests, req.Requests)
	}
	if added(req) >= added(own) || req.Recoverability < req.Target {
		t.Errorf("%d bytes added counting on requests (recoverability %v), %d without", added(req), req.Recoverability, added(own))
	}
	if !strings.Contains(reqText, "planned for the capture requests lazarus capture makes: each carrier page captured within 1 day with 87.5% (up to 3 requests, each taken with 50%: a prior") ||
		strings.Contains(ownText, "planned for the capture requests") {
		t.Errorf("output with requests:\n%s\nwithout:\n%s", reqText, ownText)
	}
	if a := own.WithRequests; a == nil || !(a.Share > 0 && a.Share < 1) || req.WithRequests != nil ||
		!strings.Contains(ownText, "counting on capture requests instead would plan ") {
		t.Errorf("what requests would change: %+v without them, %+v with them; output:\n%s", own.WithRequests, req.WithRequests, ownText)
	}
	t.Logf("bytes added: %d counting on requests, %d on the archives' own crawls (which said requests would plan %.0f%% of its bytes)",
		added(req), added(own), 100*own.WithRequests.Share)
}
