package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// statusArchiveGenerations is how many generations of the archive state
// status shows, newest first.
const statusArchiveGenerations = 3

// archiveState reads what lazarus capture recorded in inject's state
// directory behind the serve histories status reads (a history DIR/
// history/ stands for DIR): each generation published, requested and
// confirmed, with times; the newest few, nil when no history has a
// record beside it. A damaged record is a warning: the audit stands.
// Its confirmations are capture's audits', as of the last one; this
// run's audit says what the archives hold now.
func (c *statusCmd) archiveState(historyDirs []string) *genstate.Record {
	for _, d := range historyDirs {
		if filepath.Base(d) != injector.HistoryDir {
			continue
		}
		state := filepath.Dir(d)
		if _, err := os.Stat(filepath.Join(state, genstate.File)); err != nil {
			continue
		}
		rec, err := genstate.Read(state)
		if err != nil {
			fmt.Fprintf(c.stderr, "lazarus: warning: %s\n", printable(err.Error()))
			archiveStateHint(c.stderr, err)
			return nil
		}
		rec.Generations = rec.Generations[:min(len(rec.Generations), statusArchiveGenerations)]
		return rec
	}
	return nil
}

// printStatusArchiveState prints the archive state lines after the
// audit's report.
func printStatusArchiveState(w io.Writer, rec *genstate.Record) {
	if rec == nil || len(rec.Generations) == 0 {
		return
	}
	switch {
	case !rec.Confirming():
		fmt.Fprintln(w, "What lazarus capture recorded (inject's state directory; no capture run has audited the archives yet):")
	default:
		rp := "none"
		if rec.RestorePoint != "" {
			rp = rec.RestorePoint
		}
		fmt.Fprintf(w, "What lazarus capture recorded (inject's state directory; its last audit %s found restore point %s):\n", stamp(rec.Audited), rp)
	}
	for i := range rec.Generations {
		fmt.Fprintf(w, "  %s\n", archiveStateLine(&rec.Generations[i]))
	}
}

// statusJSON is status's --json output: the audit's report and, as
// archive_state, what lazarus capture recorded.
type statusJSON struct {
	*status.Report
	ArchiveState *genstate.Record `json:"archive_state,omitempty"`
}
