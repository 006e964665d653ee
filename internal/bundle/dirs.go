package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// maxOpenDirs bounds the directory handles kept open between entries;
// handles in use by a file being written stay open beyond it.
const maxOpenDirs = 64

// dirHandle is an open directory of the staging tree. Names are resolved
// relative to it one component at a time, so extracting a file costs no
// path walk.
type dirHandle struct {
	fd    int
	users atomic.Int32 // files being written in it; it is not closed meanwhile
}

// dirs holds open handles on the directories of the staging tree, by
// name ("." for the staging tree itself). Every directory in it was
// created by this extraction and is opened with O_NOFOLLOW|O_DIRECTORY
// relative to its parent's handle, so a handle is never reached through
// a symbolic link. A dirs is used by one goroutine; the handles it gives
// out may be used by others while their users count is held.
type dirs struct {
	root *os.File
	open map[string]*dirHandle
}

// newDirs opens the staging tree's root.
func newDirs(root *os.Root) (*dirs, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	d := &dirs{root: f, open: map[string]*dirHandle{}}
	d.open["."] = &dirHandle{fd: int(f.Fd())}
	return d, nil
}

// mkdir creates the directory name (whose parent exists) with mode 0700.
func (d *dirs) mkdir(name string) error {
	parent, base, err := d.parent(name)
	if err != nil {
		return err
	}
	if err := ignoringEINTR(func() error { return unix.Mkdirat(parent.fd, base, 0o700) }); err != nil {
		return &fs.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	return nil
}

// parent returns the handle of name's parent directory and name's last
// component.
func (d *dirs) parent(name string) (*dirHandle, string, error) {
	dir, base := path.Split(name)
	if dir == "" {
		return d.open["."], base, nil
	}
	h, err := d.get(dir[:len(dir)-1])
	return h, base, err
}

// hold returns the handle of name's parent directory with one more user,
// and name's last component; the caller calls release when done with it.
func (d *dirs) hold(name string) (*dirHandle, string, error) {
	h, base, err := d.parent(name)
	if err == nil {
		h.users.Add(1)
	}
	return h, base, err
}

// release gives back a handle obtained from hold; any goroutine may call
// it.
func (h *dirHandle) release() { h.users.Add(-1) }

// get returns the handle of directory name, opening it (and the
// ancestors not open yet) relative to the nearest open ancestor. Beyond
// maxOpenDirs, handles nobody uses are closed first.
func (d *dirs) get(name string) (*dirHandle, error) {
	if h := d.open[name]; h != nil {
		return h, nil
	}
	if len(d.open) >= maxOpenDirs {
		d.trim(name)
	}
	// Find the nearest open ancestor, then open downwards from it.
	todo := []string{name}
	for p := path.Dir(name); p != "."; p = path.Dir(p) {
		if d.open[p] != nil {
			break
		}
		todo = append(todo, p)
	}
	at, cached := d.open[path.Dir(todo[len(todo)-1])], true
	for i := len(todo) - 1; i >= 0; i-- {
		h, err := openDirAt(at, todo[i])
		if !cached {
			unix.Close(at.fd) // an intermediate kept only to open the next
		}
		if err != nil {
			return nil, err
		}
		if cached = i == 0 || len(d.open) < maxOpenDirs; cached {
			d.open[todo[i]] = h
		}
		at = h
	}
	return at, nil
}

// openDirAt opens the directory name relative to its parent's handle,
// refusing symbolic links and anything but a directory.
func openDirAt(parent *dirHandle, name string) (*dirHandle, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(parent.fd, path.Base(name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("opening directory %q: %w", name, &fs.PathError{Op: "openat", Path: name, Err: err})
	}
	return &dirHandle{fd: fd}, nil
}

// trim closes the handles nobody uses, except the root's and those of
// the ancestors of keep, about to be used.
func (d *dirs) trim(keep string) {
	for name, h := range d.open {
		if name != "." && h.users.Load() == 0 && !isAncestor(name, keep) {
			unix.Close(h.fd)
			delete(d.open, name)
		}
	}
}

// isAncestor reports whether directory dir is a proper ancestor of name.
func isAncestor(dir, name string) bool {
	return len(name) > len(dir) && name[len(dir)] == '/' && name[:len(dir)] == dir
}

// close closes every handle; no file may be being written.
func (d *dirs) close() {
	for name, h := range d.open {
		if name != "." {
			unix.Close(h.fd)
		}
	}
	d.open = nil
	d.root.Close()
}

// ignoringEINTR calls f until it returns something other than EINTR.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
