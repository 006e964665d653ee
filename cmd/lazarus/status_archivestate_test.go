package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// TestStatusShowsWhatCaptureRecorded: status given inject's state
// directory as its history shows, after the audit, what lazarus capture
// recorded of the newest generations (published, requested, confirmed,
// with times), in its text and as archive_state in --json.
func TestStatusShowsWhatCaptureRecorded(t *testing.T) {
	d := newDeploySite(t)
	g := d.inject(t)
	if code, out := d.capture(t, false, time.Minute); code != exitOK {
		t.Fatalf("capture: exit %d\n%s", code, out)
	}
	args := []string{"--url", d.url, "--key", d.server, "--history", d.s.Path("state"), "--source", "wayback=" + d.archive.URL, "--rate", "600000"}
	code, stdout, stderr := runStatusArgs(t, append(args, "--json")...)
	var rep struct {
		ArchiveState genstate.Record `json:"archive_state"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitOK || err != nil {
		t.Fatalf("status --json: exit %d (%v)\n%s\n%s", code, err, stdout, stderr)
	}
	if gens := rep.ArchiveState.Generations; len(gens) != 1 || gens[0].ID != g.Generation || gens[0].State() != genstate.StateConfirmed || rep.ArchiveState.Audited.IsZero() {
		t.Errorf("archive_state %+v, want generation %s confirmed", rep.ArchiveState, g.Generation)
	}
	code, stdout, stderr = runStatusArgs(t, args...)
	want := "restore point " + g.Generation + "):\n  generation " + g.Generation + " published "
	if code != exitOK || !strings.Contains(stdout, want) || !strings.Contains(stdout, "sent") || !strings.Contains(stdout, "; confirmed ") {
		t.Errorf("status: exit %d, want %q and the requests and confirmation in\n%s\n%s", code, want, stdout, stderr)
	}
}
