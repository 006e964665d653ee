package bundle

import (
	"fmt"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// fdFile is a regular file created in a staging directory, written
// through its descriptor with no os.File around it (which would cost an
// fcntl and an epoll registration per file).
type fdFile struct {
	fd   int
	name string // entry name, for errors
}

// createAt creates the file base in dir exclusively (never through a
// symbolic link, never an existing name), mode 0600 until setMeta.
func createAt(dir *dirHandle, base, name string) (*fdFile, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(dir.fd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return &fdFile{fd: fd, name: name}, nil
}

// WriteAt writes all of p at off.
func (f *fdFile) WriteAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pwrite(f.fd, p[done:], off+int64(done))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return done, &fs.PathError{Op: "pwrite", Path: f.name, Err: err}
		case n == 0:
			return done, &fs.PathError{Op: "pwrite", Path: f.name, Err: unix.EIO}
		}
		done += n
	}
	return done, nil
}

// Truncate sets the file's length.
func (f *fdFile) Truncate(size int64) error {
	if err := ignoringEINTR(func() error { return unix.Ftruncate(f.fd, size) }); err != nil {
		return &fs.PathError{Op: "ftruncate", Path: f.name, Err: err}
	}
	return nil
}

// setMeta sets the mode (permissions, setuid, setgid, sticky) through the
// descriptor and the modification time through base in dir, without
// following a symbolic link; the access time is left alone.
func (f *fdFile) setMeta(dir *dirHandle, base string, mode fs.FileMode, mtime time.Time) error {
	if err := ignoringEINTR(func() error { return unix.Fchmod(f.fd, uint32(tarMode(mode))) }); err != nil {
		return fmt.Errorf("setting mode of %q: %w", f.name, &fs.PathError{Op: "fchmod", Path: f.name, Err: err})
	}
	if err := utimesAt(dir, base, mtime); err != nil {
		return fmt.Errorf("setting modification time of %q: %w", f.name, &fs.PathError{Op: "utimensat", Path: f.name, Err: err})
	}
	return nil
}

// utimesAt sets the modification time of base in dir, never following
// a symbolic link, and leaves the access time alone; a zero mtime is
// left alone too, as os.Chtimes does.
func utimesAt(dir *dirHandle, base string, mtime time.Time) error {
	omit := unix.Timespec{Sec: unix.UTIME_OMIT, Nsec: unix.UTIME_OMIT}
	ts := []unix.Timespec{omit, unix.NsecToTimespec(mtime.UnixNano())}
	if mtime.IsZero() {
		ts[1] = omit
	}
	return ignoringEINTR(func() error { return unix.UtimesNanoAt(dir.fd, base, ts, unix.AT_SYMLINK_NOFOLLOW) })
}

// close closes the descriptor.
func (f *fdFile) close() error {
	// close is not retried on EINTR: on Linux the descriptor is gone.
	if err := unix.Close(f.fd); err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}
