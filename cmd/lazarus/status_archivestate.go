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
func (c *statusCmd) archiveState(historyDirs []string) []genstate.Generation {
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
			fmt.Fprintf(c.stderr, "lazarus: warning: %v\n", err)
			archiveStateHint(c.stderr, err)
			return nil
		}
		return rec.Generations[:min(len(rec.Generations), statusArchiveGenerations)]
	}
	return nil
}

// printStatusArchiveState prints the archive state lines after the
// audit's report.
func printStatusArchiveState(w io.Writer, gens []genstate.Generation) {
	if len(gens) == 0 {
		return
	}
	fmt.Fprintln(w, "What lazarus capture recorded (inject's state directory):")
	for i := range gens {
		fmt.Fprintf(w, "  %s\n", archiveStateLine(&gens[i]))
	}
}

// statusJSON is status's --json output: the audit's report and, as
// archive_state, what lazarus capture recorded.
type statusJSON struct {
	*status.Report
	ArchiveState []genstate.Generation `json:"archive_state,omitempty"`
}
