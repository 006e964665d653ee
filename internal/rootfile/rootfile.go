package rootfile

import (
	"crypto/rand"
	"crypto/sha256"
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

// Open creates dir if needed and opens it as a root: every name
// resolved through it stays inside it, whatever symbolic links it holds.
func Open(dir string) (*os.Root, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenRoot(dir)
}

// OpenSub opens dir as a root. When dir lies inside parent (the output
// directory), it is opened through parent's root, so a symbolic link
// planted on the way cannot lead outside parent.
func OpenSub(parent *os.Root, parentDir, dir string, perm fs.FileMode) (*os.Root, error) {
	if parent != nil {
		if rel, ok := Inside(parentDir, dir); ok {
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

// Inside returns dir relative to parent if dir is parent or lies below it.
func Inside(parent, dir string) (string, bool) {
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

// WriteAtomic writes name inside root: into a new file with a random name
// (created exclusively, so never through a link), then renamed over name.
// A symbolic link at name is replaced, never followed; a reader sees the
// old content or the new, never a half-written file. The file is created
// with perm, less the umask.
func WriteAtomic(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	return writeAtomic(root, name, data, perm, false)
}

// WriteAtomicMode is WriteAtomic with the file's mode exactly perm (the
// umask does not apply), set on the file it created, never by name: a
// name swapped for a link meanwhile cannot lend the mode to another file.
func WriteAtomicMode(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	return writeAtomic(root, name, data, perm, true)
}

func writeAtomic(root *os.Root, name string, data []byte, perm fs.FileMode, exact bool) error {
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
	if exact {
		err = f.Chmod(perm)
	}
	if err == nil {
		_, err = f.Write(data)
	}
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

// ErrNotRegular means a name recover reads back is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ReadRegular reads name inside root if it is a regular file (a symbolic
// link is not followed), at most limit bytes.
func ReadRegular(root *os.Root, name string, limit int64) ([]byte, error) {
	info, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

func KeyName(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}
