package injector

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// workspace is the state directory as one run holds it: locked, with a
// temporary directory for the run's files.
type workspace struct {
	tmp     string
	release func()
}

// openWorkspace creates and locks the state directory and makes the run's
// temporary directory inside it. A dry run creates nothing there: it
// locks the directory only if an earlier run made the lock file, and
// keeps its temporary files in the system's temporary directory.
func openWorkspace(dir string, dryRun bool) (*workspace, error) {
	if dryRun {
		return openDryRun(dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "segments"), 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	release, err := lock(dir, true)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, "tmp-")
	if err != nil {
		release()
		return nil, err
	}
	return &workspace{tmp: tmp, release: release}, nil
}

func openDryRun(dir string) (*workspace, error) {
	release, err := lock(dir, false)
	if errors.Is(err, os.ErrNotExist) {
		release, err = func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "lazarus-dry-run-")
	if err != nil {
		release()
		return nil, err
	}
	return &workspace{tmp: tmp, release: release}, nil
}

// close removes the temporary directory and releases the lock.
func (w *workspace) close() {
	os.RemoveAll(w.tmp)
	w.release()
}

// lock takes an exclusive, non-blocking lock on the state directory,
// creating the lock file if create is set (else a missing one is an
// error wrapping os.ErrNotExist).
func lock(dir string, create bool) (release func(), err error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking state: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
	}
	// Unlocked before closing: a child forked meanwhile by another
	// goroutine (a dump command) shares the open file until it execs,
	// and closing alone would leave the lock held through its copy.
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
