package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"time"
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
}

// tree tracks every name created in the staging directory, so that
// duplicates and paths through symbolic links are refused before touching
// the file system.
type tree struct {
	root  *os.Root
	nodes map[string]*node
}

func newTree(root *os.Root) *tree {
	return &tree{root: root, nodes: make(map[string]*node)}
}

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
		if err := t.root.Mkdir(name, 0o700); err != nil {
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
			if err := t.root.Mkdir(p, 0o700); err != nil {
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

// setMeta sets the mode and modification time of a regular file.
func (t *tree) setMeta(name string, mode fs.FileMode, mtime time.Time) error {
	if err := t.root.Chmod(name, mode); err != nil {
		return fmt.Errorf("setting mode of %q: %w", name, err)
	}
	if err := t.root.Chtimes(name, time.Time{}, mtime); err != nil {
		return fmt.Errorf("setting modification time of %q: %w", name, err)
	}
	return nil
}
