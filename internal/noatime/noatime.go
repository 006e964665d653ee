// Package noatime opens files for reading without updating their access
// time where the kernel allows it (Linux's O_NOATIME, for the file's owner
// or root), so that reading a whole tree or every page of a site does not
// dirty, and journal, one inode per file. Elsewhere, and where the kernel
// refuses the flag, files open as os.Open opens them.
package noatime

import (
	"errors"
	"os"
	"syscall"
)

// Open opens path for reading.
func Open(path string) (*os.File, error) {
	return open(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) })
}

// OpenIn opens name in root for reading.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	return open(func(flag int) (*os.File, error) { return root.OpenFile(name, flag, 0) })
}

// open tries with the flag, then, if the kernel refuses it (not the
// file's owner), without.
func open(with func(flag int) (*os.File, error)) (*os.File, error) {
	if flag == 0 {
		return with(os.O_RDONLY)
	}
	f, err := with(os.O_RDONLY | flag)
	if errors.Is(err, syscall.EPERM) {
		return with(os.O_RDONLY)
	}
	return f, err
}
