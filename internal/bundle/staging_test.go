package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitUndo makes a move fail half-way through a commit and checks
// that the moves already done, including a displaced file, are undone.
func TestCommitUndo(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, []spec{sFile("b", []byte("original b"), 0o644)})
	before := listing(t, dir)
	st, err := newStaging(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTree(st.tree)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	for _, name := range []string{"a", "b"} {
		if err := tr.claim(name, kindFile); err != nil {
			t.Fatal(err)
		}
		if err := st.tree.WriteFile(name, []byte("new "+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// "c" is known to the tree but missing on disk: its move fails.
	tr.nodes["c"] = &node{kind: kindFile, explicit: true}
	err = st.commit(tr, true)
	st.remove()
	if err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Fatalf("commit: got %v, want an error about c", err)
	}
	if d := diffSnapshots(before, listing(t, dir)); d != "" {
		t.Errorf("target not restored after a failed commit:\n%s", d)
	}
}

// TestCommitPlanConflicts checks the conflicts found before any move.
func TestCommitPlanConflicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		staged nodeKind
		exist  spec
		force  bool
		want   error
	}{
		// Without force, any existing name is refused.
		{"file over file", kindFile, sFile("x", nil, 0o644), false, ErrExists},
		// With force, a directory is never replaced by a file.
		{"file over dir", kindFile, sDir("x", 0o755), true, ErrExists},
		// With force, a directory is never merged into a symbolic link.
		{"dir into symlink", kindDir, sLink("x", "."), true, ErrThroughSymlink},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			makeTree(t, dir, []spec{tc.exist})
			st, err := newStaging(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer st.remove()
			tr, err := newTree(st.tree)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.close()
			if err := tr.claim("x", tc.staged); err != nil {
				t.Fatal(err)
			}
			if err := st.commit(tr, tc.force); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestStagingRemoved checks that no staging directory survives Extract,
// whether it succeeds or fails.
func TestStagingRemoved(t *testing.T) {
	for _, payload := range [][]byte{validPayload(t), hostile(t, reg("../x", ""))} {
		dir := t.TempDir()
		Extract(strings.NewReader(string(payload)), dir, ExtractOptions{})
		matches, _ := filepath.Glob(filepath.Join(dir, stagingPrefix+"*"))
		if len(matches) != 0 {
			t.Errorf("left behind: %v", matches)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
	}
}
