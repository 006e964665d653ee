package recover

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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

// openRoot creates dir if needed and opens it as a root: every name
// resolved through it stays inside it, whatever symbolic links it holds.
func openRoot(dir string) (*os.Root, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenRoot(dir)
}

// openSub opens dir as a root. When dir lies inside parent (the output
// directory), it is opened through parent's root, so a symbolic link
// planted on the way cannot lead outside parent.
func openSub(parent *os.Root, parentDir, dir string, perm fs.FileMode) (*os.Root, error) {
	if parent != nil {
		if rel, ok := inside(parentDir, dir); ok {
			if err := parent.MkdirAll(rel, perm); err != nil {
				return nil, err
			}
			return parent.OpenRoot(rel)
		}
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return nil, err
	}
	return os.OpenRoot(dir)
}

// inside returns dir relative to parent if dir is parent or lies below it.
func inside(parent, dir string) (string, bool) {
	pa, err1 := filepath.Abs(parent)
	da, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(pa, da)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// writeAtomic writes name inside root: into a new file with a random name
// (created exclusively, so never through a link), then renamed over name.
// A symbolic link at name is replaced, never followed; a reader sees the
// old content or the new, never a half-written file.
func writeAtomic(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := name + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// errNotRegular means a name recover reads back is not a regular file.
var errNotRegular = errors.New("not a regular file")

// readRegular reads name inside root if it is a regular file (a symbolic
// link is not followed), at most limit bytes.
func readRegular(root *os.Root, name string, limit int64) ([]byte, error) {
	info, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, errNotRegular)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

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
		if rel, ok := inside(dir, d); ok && rel != "." {
			names[strings.SplitN(rel, "/", 2)[0]] = true
		}
	}
	return func(name string) bool { return names[name] || strings.HasPrefix(name, ".lazarus-") }
}
