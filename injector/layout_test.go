package injector

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRestoredLayout: every segment S restores as OUT/S: a directory
// include's files under S/ (S its segment name, by default its base name),
// a single-file include keeping its file name (as S/BASE, or as S when S
// is its base name) and a dump as the file S. Two includes with the same
// base name but different segment names are fine.
func TestRestoredLayout(t *testing.T) {
	f := newFixture(t, 12, 2)
	f.write(t, "srv/app/index.php", "<?php // code\n")
	f.write(t, "etc/app/app.conf", "secret = 1\n")
	f.write(t, "etc/motd.txt", "hello\n")
	o := f.options()
	o.Includes = []Include{
		{Path: filepath.Join(f.dir, "src/app")},                       // default name: app
		{Path: filepath.Join(f.dir, "srv/app"), Segment: "code"},      // same base name, own segment
		{Path: filepath.Join(f.dir, "etc/app"), Segment: "config"},    // ditto
		{Path: filepath.Join(f.dir, "etc/motd.txt"), Segment: "motd"}, // a single file, keeping its name
		{Path: filepath.Join(f.dir, "etc/app/app.conf")},              // a single file named after itself
	}
	o.Dumps = []Dump{{Name: "db", Command: "echo 'INSERT 1;'"}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rep, out := f.recover(t)
	for _, s := range rep.Segments {
		if len(s.Paths) != 1 || s.Paths[0] != s.Name {
			t.Errorf("segment %s restored to %q, want %q", s.Name, s.Paths, s.Name)
		}
	}
	for path, want := range map[string]string{
		"app/pkg000/file0000.php": "<?php // file 0\necho 0;\n",
		"code/index.php":          "<?php // code\n",
		"config/app.conf":         "secret = 1\n",
		"motd/motd.txt":           "hello\n",
		"app.conf":                "secret = 1\n",
		"db":                      "INSERT 1;\n",
	} {
		got, err := os.ReadFile(filepath.Join(out, path))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
}

// TestSingleFileNameUnusable: a single file keeps its name, so one whose
// name no payload may hold (a backslash) fails the run with an error
// naming the include, as a file of an included directory does.
func TestSingleFileNameUnusable(t *testing.T) {
	f := newFixture(t, 4, 1)
	path := filepath.Join(f.dir, `etc/we\ird.conf`)
	f.write(t, `etc/we\ird.conf`, "x\n")
	o := f.options()
	o.Includes = []Include{{Path: path, Segment: "config"}}
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "include "+path+": ") || !strings.Contains(err.Error(), "backslash") {
		t.Fatalf("got %v, want an error naming include %s and the backslash", err, path)
	}
}

// TestAllOrNothingLayout: the one segment holds each include and dump
// under its own name, as separate segments would restore them.
func TestAllOrNothingLayout(t *testing.T) {
	f := newFixture(t, 12, 2)
	f.write(t, "etc/app/app.conf", "secret = 1\n")
	o := f.options()
	o.AllOrNothing = true
	o.Includes = append(o.Includes, Include{Path: filepath.Join(f.dir, "etc/app"), Segment: "config"})
	o.Dumps = []Dump{{Name: "db", Command: "echo 'INSERT 1;'"}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	_, out := f.recover(t)
	for _, path := range []string{"app/pkg000/file0001.php", "config/app.conf", "db"} {
		if _, err := os.Stat(filepath.Join(out, path)); err != nil {
			t.Error(err)
		}
	}
}

// TestSiteLosesPages: a page is removed while the preserved content stays
// the same. The unchanged segment's earlier coding needs more pages than
// are left, so it is coded anew (a new generation, same content) instead
// of every later run failing until the content changes.
func TestSiteLosesPages(t *testing.T) {
	f := newFixture(t, 2, 3)
	o := f.options()
	first, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(f.dir, "site/p1.html"))
	f.write(t, "site/index.html", "<html><body><a href=\"p0.html\">0</a></body></html>\n")
	o.Now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	second, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("after losing a page: %v", err)
	}
	if !second.New || second.Generation == first.Generation {
		t.Fatalf("want a new generation, got %+v", second)
	}
	rep, _ := f.recover(t)
	if rep.Generation != second.Generation {
		t.Fatalf("recovered generation %s, want %s", rep.Generation, second.Generation)
	}
}
