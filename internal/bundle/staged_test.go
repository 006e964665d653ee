package bundle

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStageMovesNothingUntilCommit: a staged payload is only in the
// staging directory until Commit, which gives Extract's report and tree;
// Remove leaves the target directory as it was; a conflict found at
// Commit (a name created after staging) is Extract's ErrExists, with
// nothing moved.
func TestStageMovesNothingUntilCommit(t *testing.T) {
	payload := hostile(t, dirHdr("app/"), reg("app/index.php", "<?php"), reg("top.txt", "t"))
	want := t.TempDir()
	wantRep, err := Extract(bytes.NewReader(payload), want, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	before := listing(t, dir)
	s, err := Stage(bytes.NewReader(payload), dir, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := topNames(t, dir); len(names) != 1 || !strings.HasPrefix(names[0], stagingPrefix) {
		t.Fatalf("staged: target directory holds %q, want only the staging directory", names)
	}
	rep, err := s.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(listing(t, want), listing(t, dir)); d != "" || !equalReports(rep, wantRep) {
		t.Fatalf("committed: %+v, want %+v\n%s", rep, wantRep, d)
	}
	s.Remove() // after Commit: nothing to do

	dir = t.TempDir()
	s, err = Stage(bytes.NewReader(payload), dir, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Remove()
	if d := diffSnapshots(before, listing(t, dir)); d != "" {
		t.Fatalf("removed: %s", d)
	}
	if _, err := s.Commit(); err == nil {
		t.Fatal("committed a removed staging directory")
	}

	dir = t.TempDir()
	s, err = Stage(bytes.NewReader(payload), dir, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "top.txt"), []byte("mine"), 0o644)
	if _, err := s.Commit(); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
	if names := topNames(t, dir); len(names) != 1 || names[0] != "top.txt" {
		t.Fatalf("after a conflict: %q, want top.txt alone", names)
	}
}

// topNames lists the names in dir.
func topNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// equalReports compares the counts and top-level names of two reports.
func equalReports(a, b Report) bool {
	return a.Files == b.Files && a.Dirs == b.Dirs && a.Bytes == b.Bytes && a.TarSize == b.TarSize &&
		strings.Join(a.Top, "/") == strings.Join(b.Top, "/") && len(a.Problems) == len(b.Problems)
}
