package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// nodeKind is what an extracted name is in the staging tree.
type nodeKind uint8

const (
	kindDir nodeKind = iota + 1
	kindFile
	kindSymlink
)

// node records one name created in the staging tree.
type node struct {
	kind     nodeKind
	explicit bool // listed in the payload, not just implied by a child
	mode     fs.FileMode
	mtime    time.Time
	owner    owner // of a directory the payload lists
}

// tree tracks every name created in the staging directory, so that
// duplicates and paths through symbolic links are refused before touching
// the file system, and holds the open directory handles names are
// created through.
type tree struct {
	dirs  *dirs
	nodes map[string]*node
}

// newTree returns an empty tree for the staging directory root; close
// releases its directory handles.
func newTree(root *os.Root) (*tree, error) {
	d, err := newDirs(root)
	if err != nil {
		return nil, fmt.Errorf("extract: opening staging directory: %w", err)
	}
	return &tree{dirs: d, nodes: make(map[string]*node)}, nil
}

// close releases the directory handles.
func (t *tree) close() { t.dirs.close() }

// claim reserves name for a new entry of the given kind after creating any
// missing parent directories. It refuses duplicates, parents that are not
// directories and parents that are symbolic links. A directory entry may
// claim a name that an earlier entry only implied.
func (t *tree) claim(name string, kind nodeKind) error {
	if n := t.nodes[name]; n != nil {
		if n.explicit || n.kind != kindDir || kind != kindDir {
			return tagf(ErrCorrupt, "duplicate entry %q", name)
		}
		n.explicit = true
		return nil
	}
	if err := t.makeParents(name); err != nil {
		return err
	}
	if kind == kindDir {
		if err := t.dirs.mkdir(name); err != nil {
			return fmt.Errorf("creating directory %q: %w", name, err)
		}
	}
	t.nodes[name] = &node{kind: kind, explicit: true}
	return nil
}

// makeParents creates the missing ancestors of name as implicit
// directories, checking the existing ones.
func (t *tree) makeParents(name string) error {
	for _, p := range parentDirs(name) {
		switch n := t.nodes[p]; {
		case n == nil:
			if err := t.dirs.mkdir(p); err != nil {
				return fmt.Errorf("creating directory %q: %w", p, err)
			}
			t.nodes[p] = &node{kind: kindDir, mode: 0o755}
		case n.kind == kindSymlink:
			return tagf(ErrThroughSymlink, "entry %q: %q is a symbolic link", name, p)
		case n.kind != kindDir:
			return tagf(ErrCorrupt, "entry %q: %q is not a directory", name, p)
		}
	}
	return nil
}

// symlink creates the symbolic link name (claimed) pointing to target,
// verbatim, and gives it its owner.
func (t *tree) symlink(target, name string, o owner) error {
	dir, base, err := t.dirs.hold(name)
	if err != nil {
		return err
	}
	defer dir.release()
	if err := ignoringEINTR(func() error { return unix.Symlinkat(target, dir.fd, base) }); err != nil {
		return &fs.PathError{Op: "symlinkat", Path: name, Err: err}
	}
	o.set(func(uid, gid int) error { return unix.Fchownat(dir.fd, base, uid, gid, unix.AT_SYMLINK_NOFOLLOW) })
	return nil
}

// link creates name (claimed) as a hard link to the regular file target,
// which is written and closed.
func (t *tree) link(target, name string) error {
	tdir, tbase, err := t.dirs.hold(target)
	if err != nil {
		return err
	}
	defer tdir.release()
	dir, base, err := t.dirs.hold(name)
	if err != nil {
		return err
	}
	defer dir.release()
	if err := ignoringEINTR(func() error { return unix.Linkat(tdir.fd, tbase, dir.fd, base, 0) }); err != nil {
		return &os.LinkError{Op: "linkat", Old: target, New: name, Err: err}
	}
	return nil
}
