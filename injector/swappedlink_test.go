package injector

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/rootfile/swaptest"
)

// A user who can write a directory where inject (as root, say) creates
// files keeps swapping what inject creates for a symbolic link to a file
// or directory of their choosing. Modes and times are set on what inject
// created, never through a name: the other file keeps its own.

// victimFile is a file elsewhere, mode 0640, modified long ago.
func victimFile(t *testing.T) (string, time.Time) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(p, []byte("victim\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
	return p, at
}

// checkVictim fails if the victim's mode or modification time changed.
func checkVictim(t *testing.T, p string, mode os.FileMode, at time.Time, what string) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != mode || !info.ModTime().Equal(at) {
		t.Fatalf("%s: the swapped-in file has mode %v and time %v, had %v and %v", what, info.Mode().Perm(), info.ModTime(), mode, at)
	}
}

// TestStagedPageTimeNotSetThroughSwappedLink: a page's new version gets
// its modification time on the file inject wrote.
func TestStagedPageTimeNotSetThroughSwappedLink(t *testing.T) {
	victim, at := victimFile(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	sw := swaptest.Start(t, dir, victim, "page.html")
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	deadline := time.Now().Add(time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		if p, err := writeTemp(page, []byte("<html>page</html>\n"), 0o644, &now); err == nil {
			os.Remove(p.tmp)
		}
		checkVictim(t, victim, 0o640, at, "write "+strconv.Itoa(i))
	}
	t.Logf("%d temporary files swapped for a link", sw.Stop())
}

// TestDumpModeNotSetThroughSwappedLink: a dump's output gets mode 0600
// and its recorded time on the file the dump wrote.
func TestDumpModeNotSetThroughSwappedLink(t *testing.T) {
	victim, at := victimFile(t)
	tmp := t.TempDir()
	sw := swaptest.Start(t, tmp, victim)
	o := DefaultOptions()
	o.Now = func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	deadline := time.Now().Add(time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		o.runDump(context.Background(), Dump{Name: "db" + strconv.Itoa(i), Command: "echo dump"}, tmp, map[string]dumpInfo{}, stateKey("k"))
		checkVictim(t, victim, 0o640, at, "dump "+strconv.Itoa(i))
	}
	t.Logf("%d dump files swapped for a link", sw.Stop())
}

// TestBundleGenerationNotWrittenThroughSwappedLink: a bundle generation
// is built in a temporary directory inject created, and made 0755 there:
// swapping that directory for a link to another (mode 0700) neither
// writes into the other directory nor changes its mode.
func TestBundleGenerationNotWrittenThroughSwappedLink(t *testing.T) {
	f := newFixture(t, 8, 3)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	o := f.options()
	o.SiteDir, o.URLs, o.BundleDir = "", []string{"/", "/a/", "/b/", "/c/"}, filepath.Join(f.dir, "bundle")
	gens := filepath.Join(o.BundleDir, bundleGenerations)
	if err := os.MkdirAll(gens, 0o755); err != nil {
		t.Fatal(err)
	}
	sw := swaptest.Start(t, gens, victim)
	for i := range 5 {
		f.write(t, "src/app/changed.php", "<?php echo "+strconv.Itoa(i)+";\n")
		Run(context.Background(), o) // fails when the swapper wins
		info, err := os.Stat(victim)
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(victim)
		if info.Mode().Perm() != 0o700 || len(entries) > 0 {
			t.Fatalf("run %d: the swapped-in directory has mode %v and %d entries, had 0700 and none", i, info.Mode().Perm(), len(entries))
		}
	}
	t.Logf("%d generation directories swapped for a link", sw.Stop())
}
