package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// TestArchiveStateLineSanitisesRecordedStrings: a generation id and
// archive names read from a hostile or damaged archive-state.json are
// printed without their escape sequences (which could rewrite the
// terminal) and clipped, so that one huge name does not fill it.
func TestArchiveStateLineSanitisesRecordedStrings(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	huge := strings.Repeat("w", 500_000)
	g := genstate.Generation{
		ID: "\x1b]0;owned\a\x1b[2J", Published: t0,
		Requested:   []genstate.Request{{Archive: huge, Keyed: true, First: t0, Sent: 2, Taken: 1}},
		Confirmed:   t0,
		ConfirmedIn: []genstate.Confirmation{{Archive: "\x1b[31m" + huge, Seen: t0, Since: t0}},
	}
	line := archiveStateLine(&g)
	if strings.ContainsAny(line, "\x1b\a") {
		t.Errorf("line keeps control characters: %q", line[:min(len(line), 200)])
	}
	if len(line) > 4096 {
		t.Errorf("line is %d bytes long, want a clipped one", len(line))
	}
	// Thousands of archives in one generation are counted past a few.
	many := genstate.Generation{ID: "g", Published: t0, Confirmed: t0}
	for range 10_000 {
		many.Requested = append(many.Requested, genstate.Request{Archive: "wayback", First: t0, Sent: 1})
		many.ConfirmedIn = append(many.ConfirmedIn, genstate.Confirmation{Archive: "wayback", Seen: t0, Since: t0})
	}
	if line := archiveStateLine(&many); len(line) > 4096 || !strings.Contains(line, "more") {
		t.Errorf("a generation with 10,000 archives: a line of %d bytes", len(line))
	}
}
