package recover

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
)

// Recover's own files in the output directory. A payload may not use these
// names at its top level: restored files never take the place of the
// report or the journal (see reserved).
const (
	// ReportFile is the report's name in the output directory.
	ReportFile = codec.ReportName
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

// openOut opens (creating) the output directory and makes sure it takes
// new files, before any archive is asked anything: a read-only directory
// is an ErrWrite at once, not segments found short an hour later.
func openOut(dir string) (*os.Root, error) {
	root, err := rootfile.Open(dir)
	if err != nil {
		return nil, writeError(dir, err)
	}
	var b [8]byte
	rand.Read(b[:])
	name := ".lazarus-probe-" + hex.EncodeToString(b[:])
	f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		f.Close()
		err = root.Remove(name)
	}
	if err != nil {
		root.Close()
		return nil, writeError(dir, err)
	}
	return root, nil
}

// writeError is an ErrWrite naming the output directory.
func writeError(dir string, err error) error {
	return fmt.Errorf("%w %s: %w", ErrWrite, dir, err)
}

// failedWriting reports whether an extraction failed on the local file
// system (a system call refused: permissions, a full disk, a read-only
// mount), not on the payload: a whole segment that could not be written,
// not one short of blocks.
func failedWriting(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	for _, payload := range []error{bundle.ErrNotPayload, bundle.ErrUnknownVersion, bundle.ErrTooLarge, bundle.ErrBomb,
		bundle.ErrTruncated, bundle.ErrCorrupt, bundle.ErrUnsafePath, bundle.ErrThroughSymlink, bundle.ErrExists} {
		if errors.Is(err, payload) {
			return false
		}
	}
	return true
}

// saveReport saves the report in the output directory and returns the
// run's verdict: restore's, or an ErrWrite when the report could not be
// saved (with restore's verdict wrapped too).
func saveReport(rep *Report, root *os.Root, dir string, verdict error) error {
	err := rep.save(root)
	switch {
	case err == nil:
		return verdict
	case verdict == nil:
		return fmt.Errorf("%w %s: saving the report: %w", ErrWrite, dir, err)
	case errors.Is(verdict, ErrWrite):
		return fmt.Errorf("%w; saving the report: %w", verdict, err)
	}
	return fmt.Errorf("%w %s: saving the report: %w; and %w", ErrWrite, dir, err, verdict)
}
