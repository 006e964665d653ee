package bundle

import (
	"errors"
	"os"
	"syscall"
)

// openNoATime opens p for reading without updating its access time where
// the kernel allows it (the file's owner, or root), so that packing a tree
// does not dirty, and journal, one inode per file read; elsewhere it opens
// p as os.Open does.
func openNoATime(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOATIME, 0)
	if errors.Is(err, syscall.EPERM) {
		return os.Open(p)
	}
	return f, err
}
