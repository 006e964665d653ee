package rootfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetTimes sets the access and modification times of the open file f
// (futimens), never through its name: a name swapped for a symbolic
// link since f was created cannot lend the times to another file.
func SetTimes(f *os.File, atime, mtime time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		for {
			// utimensat with a NULL path is futimens: it sets the times of
			// fd itself.
			_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, fd, 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
			if e != unix.EINTR {
				if e != 0 {
					serr = e
				}
				return
			}
		}
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return &fs.PathError{Op: "futimens", Path: f.Name(), Err: err}
	}
	return nil
}

// MkdirTemp creates a new directory prefix+random inside root, with
// perm (less the umask), and returns its name.
func MkdirTemp(root *os.Root, prefix string, perm fs.FileMode) (string, error) {
	for range 100 {
		var rnd [8]byte
		rand.Read(rnd[:])
		name := prefix + hex.EncodeToString(rnd[:])
		err := root.Mkdir(name, perm)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", errors.New("creating a temporary directory: too many names taken")
}
