package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strings"
	"syscall"
)

// Store holds a history: values by slash-separated key, such as
// "records/0123….jsonl". A directory (Dir) and Caddy's storage (an
// adapter in caddymodule) implement it.
type Store interface {
	// Put stores value at key, replacing what was there; a reader sees
	// the old value or the new one, never part of it.
	Put(ctx context.Context, key string, value []byte) error
	// Get returns the value at key, an error wrapping fs.ErrNotExist if
	// there is none.
	Get(ctx context.Context, key string) ([]byte, error)
	// List returns the keys directly under dir (values and
	// subdirectories alike), each as dir + "/" + name, in any order; none,
	// or an error wrapping fs.ErrNotExist, if dir does not exist.
	List(ctx context.Context, dir string) ([]string, error)
}

// Dir is a Store in a local directory: each key is a file. Files are
// written to a temporary file (a name starting with ".tmp-", which List
// leaves out) and renamed into place, mode 0600 in directories of mode
// 0700: the history sits beside the injector's state. Every access goes
// through an os.Root of the directory, so no symbolic link leads out of
// it, and only regular files are read (a FIFO or device where a value
// belongs is an error, not a wait).
type Dir string

// Put writes value to the key's file atomically.
func (d Dir) Put(ctx context.Context, key string, value []byte) error {
	name, err := d.name(ctx, key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return err
	}
	root, err := os.OpenRoot(string(d))
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(path.Dir(name), 0o700); err != nil {
		return err
	}
	tmp, f, err := createTemp(root, path.Dir(name))
	if err != nil {
		return err
	}
	_, err = f.Write(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// createTemp creates a new ".tmp-" file in dir of root.
func createTemp(root *os.Root, dir string) (string, *os.File, error) {
	for range 100 {
		name := path.Join(dir, fmt.Sprintf(".tmp-%d", rand.Uint64()))
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, fmt.Errorf("history: no free temporary name in %s", dir)
}

// Get reads the key's file, refusing one over MaxValueBytes and anything
// but a regular file.
func (d Dir) Get(ctx context.Context, key string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO does not wait for a writer; it is then
	// refused as not regular.
	f, err := d.open(ctx, key, os.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("history %s: not a regular file (%s)", key, info.Mode().Type())
	}
	v, err := io.ReadAll(io.LimitReader(f, MaxValueBytes+1))
	if err == nil && len(v) > MaxValueBytes {
		return nil, fmt.Errorf("%s: more than %d bytes", key, MaxValueBytes)
	}
	return v, err
}

// List names the files and directories in the key's directory.
func (d Dir) List(ctx context.Context, dir string) ([]string, error) {
	// O_DIRECTORY and O_NONBLOCK: a FIFO is not waited on but refused.
	f, err := d.open(ctx, dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".tmp-") {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// open opens the key's file with flag, through an os.Root of the
// directory.
func (d Dir) open(ctx context.Context, key string, flag int) (*os.File, error) {
	name, err := d.name(ctx, key)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(string(d))
	if err != nil {
		return nil, err
	}
	defer root.Close() // files opened stay open
	return root.OpenFile(name, flag, 0)
}

// name checks a key, refusing keys that leave the directory, and the
// context.
func (d Dir) name(ctx context.Context, key string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !fs.ValidPath(key) || key == "." {
		return "", fmt.Errorf("history key %q: %w", key, fs.ErrInvalid)
	}
	return key, nil
}
