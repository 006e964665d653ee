package site

import (
	"errors"
	"os"
	"syscall"
)

// openNoATime opens name in root for reading without updating its access
// time where the kernel allows it (the file's owner, or root), so that
// reading every page does not dirty, and journal, one inode per page;
// elsewhere it opens name as root.Open does.
func openNoATime(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NOATIME, 0)
	if errors.Is(err, syscall.EPERM) {
		return root.Open(name)
	}
	return f, err
}
