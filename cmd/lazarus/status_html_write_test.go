package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/rootfile/swaptest"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestStatusHTMLModeNotSetThroughSwappedLink: a user who can write the
// directory of --html FILE keeps swapping the report's temporary file for
// a symbolic link to a file of theirs choosing (mode 0600) while status
// (as root, say) writes the page. The page's mode is set on the file
// status created, never through a name: the other file keeps its mode.
func TestStatusHTMLModeNotSetThroughSwappedLink(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(victim, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "status.html")
	rep := &status.Report{Site: "https://example.org/", Now: time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)}
	sw := swaptest.Start(t, dir, victim, "status.html")
	deadline := time.Now().Add(time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		writeStatusHTML(out, rep) // may fail: the swapper moves its files away
		info, err := os.Stat(victim)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Fatalf("write %d: the swapped-in file's mode became %v", i, info.Mode().Perm())
		}
		os.Remove(out)
	}
	t.Logf("%d temporary files swapped for a link", sw.Stop())
}
