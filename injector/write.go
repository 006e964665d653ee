package injector

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// tmpPrefix names the temporary files inject writes next to their targets.
const tmpPrefix = ".lazarus-tmp-"

// batch replaces many files crash-safely: every new version is written to
// a temporary file beside its target, one syncfs makes them all durable,
// then each is renamed over its target. Readers and crashes see each file
// either old or new; one sync instead of one per page keeps large sites
// fast.
type batch struct {
	pending []pendingFile
}

type pendingFile struct{ tmp, path string }

// add writes the new version of path to a temporary file. mode is used for
// new files; an existing file keeps its mode. mtime, if not nil, is set.
func (b *batch) add(path string, data []byte, mode os.FileMode, mtime *time.Time) error {
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+"*")
	if err != nil {
		return err
	}
	b.pending = append(b.pending, pendingFile{tmp.Name(), path})
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil && mtime != nil {
		err = os.Chtimes(tmp.Name(), *mtime, *mtime)
	}
	return err
}

// commit makes the temporary files durable and renames them into place.
func (b *batch) commit() error {
	if len(b.pending) == 0 {
		return nil
	}
	if err := syncfs(filepath.Dir(b.pending[0].path)); err != nil {
		b.abort()
		return err
	}
	for i, p := range b.pending {
		if err := os.Rename(p.tmp, p.path); err != nil {
			b.pending = b.pending[i:]
			b.abort()
			return err
		}
	}
	b.pending = nil
	return nil
}

// abort removes the temporary files not yet renamed.
func (b *batch) abort() {
	for _, p := range b.pending {
		os.Remove(p.tmp)
	}
	b.pending = nil
}

// syncfs flushes the file system holding dir.
func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil && !errors.Is(err, unix.ENOSYS) {
		return err
	}
	return nil
}

// removeStaleTemps removes temporary files an interrupted run left in dir.
func removeStaleTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// writeFileAtomic replaces one file crash-safely (see batch).
func writeFileAtomic(path string, data []byte, mode os.FileMode, mtime *time.Time) error {
	var b batch
	if err := b.add(path, data, mode, mtime); err != nil {
		b.abort()
		return err
	}
	return b.commit()
}

// writeIfChanged writes data to path only if its bytes differ, and
// reports whether it wrote.
func writeIfChanged(path string, data []byte, mode os.FileMode, mtime *time.Time) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, writeFileAtomic(path, data, mode, mtime)
}
