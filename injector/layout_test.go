package injector

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRestoredLayout: every segment S restores as OUT/S: a directory
// include's files under S/ (S its segment name, by default its base name),
// a single-file include and a dump as the file S. Two includes with the
// same base name but different segment names are fine.
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
		{Path: filepath.Join(f.dir, "etc/motd.txt"), Segment: "motd"}, // a single file
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
		"motd":                    "hello\n",
		"db":                      "INSERT 1;\n",
	} {
		got, err := os.ReadFile(filepath.Join(out, path))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
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
