package e2etest

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// Tree is what a directory held before the site was destroyed: its
// regular files' bytes and every entry's owner, by path relative to it.
type Tree struct {
	Files  map[string][]byte
	Owners map[string][2]int // uid and gid
}

// SnapshotTree records dir, leaving out the entries whose relative path
// skip reports (nil: none).
func SnapshotTree(t *testing.T, dir string, skip func(rel string) bool) *Tree {
	t.Helper()
	tr := &Tree{Files: map[string][]byte{}, Owners: map[string][2]int{}}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if skip != nil && skip(rel) {
			return nil
		}
		st := info.Sys().(*syscall.Stat_t)
		tr.Owners[rel] = [2]int{int(st.Uid), int(st.Gid)}
		if info.Mode().IsRegular() {
			tr.Files[rel], err = os.ReadFile(p)
		}
		return err
	})
	Must(t, err)
	return tr
}

// Check checks that dir holds the tree's files byte for byte and, when
// the test runs as root, its owners; what names dir in errors.
func (tr *Tree) Check(t *testing.T, dir, what string) {
	t.Helper()
	_, _, root := WebUser(t)
	for rel, want := range tr.Files {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s/%s: %d bytes, %v; want %d", what, rel, len(got), err, len(want))
		}
	}
	for rel, want := range tr.Owners {
		info, err := os.Lstat(filepath.Join(dir, rel))
		if err != nil {
			t.Errorf("%s/%s: %v", what, rel, err)
			continue
		}
		st := info.Sys().(*syscall.Stat_t)
		if got := [2]int{int(st.Uid), int(st.Gid)}; root && got != want {
			t.Errorf("%s/%s: owned by %v, want %v", what, rel, got, want)
		}
	}
}

// CheckOwnersGiven checks the owners recover's report counts: as root,
// every entry was given its recorded owner; otherwise some are counted.
func CheckOwnersGiven(t *testing.T, rep *lzrecover.Report) {
	t.Helper()
	_, _, root := WebUser(t)
	for _, ow := range rep.Owners {
		if root && !ow.Restored {
			t.Errorf("as root, %d entries of %s:%s not given their owner: %s", ow.Entries, ow.User, ow.Group, ow.Reason)
		}
	}
	if !root && len(rep.Owners) == 0 {
		t.Error("the report counts no owner")
	}
}
