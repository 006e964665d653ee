package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// staging is the temporary directory inside the target directory that
// Extract fills before moving the result into place. It holds "t", the
// extracted tree, and "o", where replaced files wait until success.
type staging struct {
	dir    *os.Root        // the target directory
	base   string          // name of the staging directory inside dir
	tree   *os.Root        // base/t
	merged map[string]bool // directories that already existed in dir
}

// newStaging creates a fresh staging directory inside dir.
func newStaging(dir string) (*staging, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("extract: %s is not a directory", dir)
	}
	tmp, err := os.MkdirTemp(dir, stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("extract: creating staging directory: %w", err)
	}
	st := &staging{base: filepath.Base(tmp)}
	if err := st.open(dir); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("extract: preparing staging directory: %w", err)
	}
	return st, nil
}

func (st *staging) open(dir string) error {
	var err error
	if st.dir, err = os.OpenRoot(dir); err != nil {
		return err
	}
	for _, sub := range []string{"t", "o"} {
		if err := st.dir.Mkdir(path.Join(st.base, sub), 0o700); err != nil {
			st.dir.Close()
			return err
		}
	}
	st.tree, err = st.dir.OpenRoot(path.Join(st.base, "t"))
	if err != nil {
		st.dir.Close()
	}
	return err
}

// remove deletes the staging directory and everything left in it.
func (st *staging) remove() {
	st.tree.Close()
	st.dir.RemoveAll(st.base)
	st.dir.Close()
}

// move is one rename done while committing, kept to undo it.
type move struct{ from, to string }

// commit moves the extracted tree into the target directory. All conflicts
// are checked before anything moves; if a move still fails, the moves done
// so far are undone.
func (st *staging) commit(t *tree, force bool) error {
	st.merged = make(map[string]bool)
	c := &committer{st: st, tree: t, force: force, children: childrenOf(t)}
	for _, name := range c.children["."] {
		if err := c.plan(name); err != nil {
			return err
		}
	}
	return c.execute()
}

// committer plans and performs the moves of a commit.
type committer struct {
	st       *staging
	tree     *tree
	force    bool
	children map[string][]string // parent name ("." for top level) → sorted names
	ops      []commitOp
}

// commitOp moves a staged name into place, or first moves the existing
// file out of the way (displace).
type commitOp struct {
	name     string
	displace bool
}

// plan decides how to bring the staged name into the target directory. A
// staged directory merges into an existing directory (nothing in it is
// replaced unless forced, and a name that exists there conflicts in
// turn); a symbolic link is never extracted into; any other existing name
// is a conflict unless forced, and then replaced (a directory never is).
func (c *committer) plan(name string) error {
	info, err := c.st.dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		c.ops = append(c.ops, commitOp{name: name})
		return nil
	}
	if err != nil {
		return fmt.Errorf("extract: checking %q in the target directory: %w", name, err)
	}
	staged := c.tree.nodes[name].kind
	switch {
	case staged == kindDir && info.IsDir():
		c.st.merged[name] = true
		for _, child := range c.children[name] {
			if err := c.plan(child); err != nil {
				return err
			}
		}
	case staged == kindDir && info.Mode()&fs.ModeSymlink != 0:
		if !c.force {
			return tagf(ErrExists, "%q already exists in the target directory (a symbolic link)", name)
		}
		return tagf(ErrThroughSymlink, "%q is a symbolic link in the target directory; refusing to extract into it", name)
	case !c.force:
		return tagf(ErrExists, "%q already exists in the target directory", name)
	case info.IsDir():
		return tagf(ErrExists, "%q is a directory in the target directory; refusing to replace it", name)
	default:
		c.ops = append(c.ops, commitOp{name: name, displace: true}, commitOp{name: name})
	}
	return nil
}

// execute performs the planned moves, undoing them all if one fails.
func (c *committer) execute() error {
	var done []move
	for i, op := range c.ops {
		m := move{from: path.Join(c.st.base, "t", op.name), to: op.name}
		if op.displace {
			m = move{from: op.name, to: path.Join(c.st.base, "o", strconv.Itoa(i))}
		}
		if err := c.st.dir.Rename(m.from, m.to); err != nil {
			err = fmt.Errorf("extract: moving %q into place: %w", op.name, err)
			return errors.Join(err, c.undo(done))
		}
		done = append(done, m)
	}
	return nil
}

// undo reverses the moves, last first.
func (c *committer) undo(done []move) error {
	var errs []error
	for _, m := range slices.Backward(done) {
		if err := c.st.dir.Rename(m.to, m.from); err != nil {
			errs = append(errs, fmt.Errorf("extract: undoing move of %q: %w", m.from, err))
		}
	}
	return errors.Join(errs...)
}

// childrenOf maps every directory name of t ("." for the top) to its
// sorted children.
func childrenOf(t *tree) map[string][]string {
	children := make(map[string][]string)
	for name := range t.nodes {
		parent := path.Dir(name)
		children[parent] = append(children[parent], name)
	}
	for _, list := range children {
		slices.Sort(list)
	}
	return children
}

// finalize sets the owners, modes and modification times of the
// extracted directories in their final place, deepest first (setting a directory's
// contents changes its time), through handles opened one component at a
// time without following symbolic links. Failures are returned as
// problems.
func (st *staging) finalize(t *tree) []Warning {
	var names []string
	for name, n := range t.nodes {
		if n.kind == kindDir && (n.explicit || !st.merged[name]) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(b, a) })
	d, err := newDirs(st.dir)
	if err != nil {
		return []Warning{{Name: ".", Reason: "modes and modification times of directories not restored: " + err.Error()}}
	}
	defer d.close()
	var problems []Warning
	for _, name := range names {
		n := t.nodes[name]
		if err := setDirMeta(d, name, n); err != nil {
			problems = append(problems, Warning{Name: name, Reason: err.Error()})
		}
	}
	return problems
}

// setDirMeta sets the mode of directory name and, if the payload listed
// it, its modification time.
func setDirMeta(d *dirs, name string, n *node) error {
	h, err := d.get(name)
	if err != nil {
		return fmt.Errorf("mode not restored: %w", err)
	}
	n.owner.set(func(uid, gid int) error { return unix.Fchown(h.fd, uid, gid) }) // before the mode: chown clears setgid
	if err := ignoringEINTR(func() error { return unix.Fchmod(h.fd, uint32(tarMode(n.mode))) }); err != nil {
		return fmt.Errorf("mode not restored: %w", &fs.PathError{Op: "fchmod", Path: name, Err: err})
	}
	if !n.explicit {
		return nil
	}
	parent, base, err := d.parent(name)
	if err == nil {
		err = utimesAt(parent, base, n.mtime)
	}
	if err != nil {
		return fmt.Errorf("modification time not restored: %w", &fs.PathError{Op: "utimensat", Path: name, Err: err})
	}
	return nil
}
