package recover

import (
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/rootfile"
)

// Recover's own files in the output directory. A payload may not use these
// names at its top level: restored files never take the place of the
// report or the journal (see reserved).
const (
	// ReportFile is the report's name in the output directory.
	ReportFile = "recovery.json"
	// JournalDir is the default state directory's name in the output
	// directory (the CLI's default for --state).
	JournalDir = ".lazarus-recover"
)

// reserved returns the top-level names in dir (the output or the pages
// directory) that recovery's own files use, so that neither a payload nor
// a captured page may take them: the report, the default journal
// directory, extraction's staging directories, and the state, pages and
// output directories when they lie inside dir.
func reserved(o *Options, dir string) func(name string) bool {
	names := map[string]bool{ReportFile: true, JournalDir: true}
	for _, d := range []string{o.StateDir, o.PagesDir, o.Out} {
		if d == "" {
			continue
		}
		if rel, ok := rootfile.Inside(dir, d); ok && rel != "." {
			names[strings.SplitN(rel, "/", 2)[0]] = true
		}
	}
	return func(name string) bool { return names[name] || strings.HasPrefix(name, ".lazarus-") }
}
