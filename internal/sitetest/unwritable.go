package sitetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ErrCannotMakeUnwritable means this machine cannot make a directory
// refuse writes to the test's user (root without the immutable
// attribute, say): tests of write failures skip.
var ErrCannotMakeUnwritable = errors.New("cannot make a directory unwritable here")

// MakeUnwritable makes dir refuse new entries and changes to its
// entries: its mode 0555, and for root, who ignores modes, the immutable
// attribute (chattr +i, on file systems that have it). It checks that a
// file can no longer be created there, and returns what undoes it.
func MakeUnwritable(dir string) (undo func(), err error) {
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%w: chattr +i: %v %s", ErrCannotMakeUnwritable, err, out)
		}
		undo = func() { exec.Command("chattr", "-i", dir).Run() }
	} else {
		if err := os.Chmod(dir, 0o555); err != nil {
			return nil, err
		}
		undo = func() { os.Chmod(dir, 0o755) }
	}
	probe := filepath.Join(dir, ".unwritable-probe")
	if err := os.WriteFile(probe, nil, 0o644); err == nil {
		os.Remove(probe)
		undo()
		return nil, fmt.Errorf("%w: %s still takes new files", ErrCannotMakeUnwritable, dir)
	}
	return undo, nil
}

// Unwritable is MakeUnwritable for a test: undone when the test ends,
// and the test skipped when the machine cannot do it.
func Unwritable(tb testing.TB, dir string) {
	tb.Helper()
	undo, err := MakeUnwritable(dir)
	if errors.Is(err, ErrCannotMakeUnwritable) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(undo)
}
