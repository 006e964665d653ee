package bundle

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/noatime"
)

// Warning is a non-fatal problem met while collecting or extracting: an
// entry that was skipped or changed on the way.
type Warning struct {
	// Name is the entry name the warning is about.
	Name string
	// Reason says what happened, e.g. "skipped socket".
	Reason string
}

// String returns "name: reason".
func (w Warning) String() string { return w.Name + ": " + w.Reason }

// Hooks for tests: failures that are hard to provoke for real (e.g. when
// running as root, permissions do not stop reads).
var (
	osOpen    = noatime.Open
	osReadDir = os.ReadDir
)

// CollectOptions adjust Collect. The zero value collects everything.
type CollectOptions struct {
	// Exclude, if not nil, is asked about every object below root, with
	// its slash-separated path relative to root (without the prefix) and
	// whether it is a directory (a symbolic link never is). Objects it
	// returns true for are left out, silently; an excluded directory is
	// not read at all, so nothing below it is collected or asked about,
	// and it may be unreadable. Root itself is never asked about.
	// Defaults to excluding nothing.
	Exclude func(rel string, isDir bool) bool
}

// Collect walks the directory tree at root and returns one entry for every
// directory, regular file and symbolic link below it, named prefix plus the
// slash-separated path relative to root, except those opts.Exclude leaves
// out.
//
// Symbolic links are recorded as links (absolute ones too) and never
// followed; root itself may be a symbolic link to a directory. A non-empty
// prefix ("app" or "app/") also yields a directory entry for root itself.
// Devices, sockets and FIFOs are skipped with a Warning. Every regular file
// is opened once to prove it is readable; an unreadable file or directory
// fails the whole collection with an error naming it.
func Collect(root, prefix string, opts CollectOptions) ([]Entry, []Warning, error) {
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		if err := validateName(prefix); err != nil {
			return nil, nil, fmt.Errorf("collect %s: prefix: %w", root, err)
		}
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, nil, fmt.Errorf("collect: %w", err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("collect: %s is not a directory", root)
	}
	c := &collector{prefix: prefix, exclude: opts.Exclude}
	if prefix != "" {
		c.entries = append(c.entries, dirEntry(prefix, info))
	}
	if err := c.walk(root, ""); err != nil {
		return nil, nil, err
	}
	return c.entries, c.warnings, nil
}

// FileEntry returns a regular-file entry named name with the contents of
// the file at path (following symbolic links). Its size, mode and
// modification time are taken now; packing fails with ErrChanged if the
// file changes before it is read.
func FileEntry(name, path string) (Entry, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Entry{}, fmt.Errorf("file entry %q: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("file entry %q: %s is not a regular file", name, path)
	}
	e := fileEntry(name, path, info)
	if err := e.validate(); err != nil {
		return Entry{}, fmt.Errorf("file entry: %w", err)
	}
	return e, nil
}

// collector accumulates the results of Collect.
type collector struct {
	prefix   string
	exclude  func(rel string, isDir bool) bool
	entries  []Entry
	warnings []Warning
}

// walk adds the contents of directory dir, whose path relative to the
// root is rel ("" for the root).
func (c *collector) walk(dir, rel string) error {
	list, err := osReadDir(dir)
	if err != nil {
		return fmt.Errorf("collect: reading directory %s: %w", dir, err)
	}
	for _, de := range list {
		if err := c.add(filepath.Join(dir, de.Name()), path.Join(rel, de.Name())); err != nil {
			return err
		}
	}
	return nil
}

// add records the file system object at p, whose path relative to the
// root is rel, unless it is excluded.
func (c *collector) add(p, rel string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if c.exclude != nil && c.exclude(rel, info.IsDir()) {
		return nil
	}
	name := path.Join(c.prefix, rel)
	if err := validateName(name); err != nil {
		return fmt.Errorf("collect %s: %w", p, err)
	}
	switch mode := info.Mode(); {
	case mode.IsDir():
		c.entries = append(c.entries, dirEntry(name, info))
		return c.walk(p, rel)
	case mode.IsRegular():
		return c.addFile(p, name, info)
	case mode&fs.ModeSymlink != 0:
		return c.addSymlink(p, name, info)
	default:
		c.warnings = append(c.warnings, Warning{Name: name, Reason: fmt.Sprintf("skipped special file %s (%v)", p, mode.Type())})
		return nil
	}
}

func (c *collector) addFile(p, name string, info fs.FileInfo) error {
	e := fileEntry(name, p, info)
	rc, err := e.Open()
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	rc.Close()
	c.entries = append(c.entries, e)
	return nil
}

func (c *collector) addSymlink(p, name string, info fs.FileInfo) error {
	target, err := os.Readlink(p)
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if target == "" || strings.IndexByte(target, 0) >= 0 {
		return fmt.Errorf("collect: symbolic link %s has an unusable target %q", p, target)
	}
	uname, gname := ownerNames(info)
	c.entries = append(c.entries, Entry{
		Name: name, Type: TypeSymlink, Mode: info.Mode() & modeBits,
		ModTime: info.ModTime(), Linkname: target, Uname: uname, Gname: gname,
	})
	return nil
}

func dirEntry(name string, info fs.FileInfo) Entry {
	uname, gname := ownerNames(info)
	return Entry{Name: name, Type: TypeDir, Mode: info.Mode() & modeBits, ModTime: info.ModTime(), Uname: uname, Gname: gname}
}

// fileEntry describes the regular file at p, as seen in info.
func fileEntry(name, p string, info fs.FileInfo) Entry {
	uname, gname := ownerNames(info)
	return Entry{
		Name: name, Type: TypeRegular, Mode: info.Mode() & modeBits,
		ModTime: info.ModTime(), Size: info.Size(), Uname: uname, Gname: gname,
		Open: func() (io.ReadCloser, error) { return openSame(p, info) },
	}
}

// openSame opens p and checks that it is still the regular file described
// by want, so that a file swapped for a link or another file is noticed.
func openSame(p string, want fs.FileInfo) (io.ReadCloser, error) {
	f, err := osOpen(p)
	if err != nil {
		return nil, err
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !got.Mode().IsRegular() || !os.SameFile(got, want) {
		f.Close()
		return nil, tagf(ErrChanged, "%s was replaced while packing", p)
	}
	return f, nil
}
