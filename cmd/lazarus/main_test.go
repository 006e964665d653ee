package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/net/html"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lazarus": func() {
			installTestHooks()
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the CLI end to end: testdata/*.txt.
func TestScripts(t *testing.T) {
	recipes, err := filepath.Abs("../../docs/recipes")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Setup: func(env *testscript.Env) error {
			env.Setenv("RECIPES", recipes)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"recover-dir": cmdRecoverDir,
			"snapshot":    cmdSnapshot,
			"samevisible": cmdSameVisible,
			"archive":     cmdArchive,
			"serve":       cmdServe,
			"archiveof":   cmdArchiveOf,
			"dumpgone":    cmdDumpGone,
			"unwritable":  cmdUnwritable,
		},
		Condition: func(cond string) (bool, error) {
			if cond != "unwritable" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return canMakeUnwritable()
		},
	})
}

// canMakeUnwritable reports whether this machine can make a directory
// refuse writes to the test's user ([unwritable] in the scripts).
func canMakeUnwritable() (bool, error) {
	dir, err := os.MkdirTemp("", "lazarus-unwritable-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	undo, err := sitetest.MakeUnwritable(dir)
	if errors.Is(err, sitetest.ErrCannotMakeUnwritable) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	undo()
	return true, nil
}

// unwritable DIR: make DIR refuse new files until the script ends.
func cmdUnwritable(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: unwritable DIR")
	}
	undo, err := sitetest.MakeUnwritable(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Defer(undo)
}

// recover-dir OWNER_KEY PAGES OUT: rebuild through the recover library.
func cmdRecoverDir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: recover-dir OWNER_KEY PAGES OUT")
	}
	key, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	rep, err := sitetest.RecoverDir(ts.MkAbs(args[1]), lzrecover.Options{OwnerKey: key, Out: ts.MkAbs(args[2])})
	if rep != nil {
		for _, s := range rep.Segments {
			fmt.Fprintf(ts.Stdout(), "segment %s %s %d files %s\n", s.Name, s.Status, s.Files, s.Detail)
		}
	}
	if (err != nil) != neg {
		ts.Fatalf("recover-dir: %v", err)
	}
}

// snapshot DIR FILE: write every file's path, mode, mtime and hash.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: snapshot DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		lines = append(lines, fmt.Sprintf("%s %v %d %x", rel, info.Mode(), info.ModTime().UnixNano(), sha256.Sum256(raw)))
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// samevisible A B: every .html file in A and B has the same document once
// comments are removed: same text, elements, attributes, links and images.
func cmdSameVisible(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samevisible DIR_A DIR_B")
	}
	a, b := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		va, vb := visible(ts, p), visible(ts, filepath.Join(b, rel))
		if va != vb && !neg {
			ts.Fatalf("%s: visible content differs", rel)
		}
		return nil
	})
	ts.Check(err)
}

// visible renders a page's parse tree without comments.
func visible(ts *testscript.TestScript, path string) string {
	raw, err := os.ReadFile(path)
	ts.Check(err)
	doc, err := html.Parse(bytes.NewReader(raw))
	ts.Check(err)
	var strip func(n *html.Node)
	strip = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.CommentNode {
				n.RemoveChild(c)
			} else {
				strip(c)
			}
			c = next
		}
	}
	strip(doc)
	var buf bytes.Buffer
	ts.Check(html.Render(&buf, doc))
	// Whitespace text nodes next to removed comments may merge: compare
	// with whitespace runs collapsed.
	return strings.Join(strings.Fields(buf.String()), " ")
}

// archive [-ago DURATION] SITE_DIR: serve the site's pages from a local
// Wayback/Memento archive, captured an hour after now (or DURATION ago),
// and set $ARCHIVE to its URL.
func cmdArchive(ts *testscript.TestScript, neg bool, args []string) {
	at := time.Now().Add(time.Hour) // after any generation made now
	if len(args) == 3 && args[0] == "-ago" {
		ago, err := time.ParseDuration(args[1])
		ts.Check(err)
		at, args = time.Now().Add(-ago), args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: archive [-ago DURATION] SITE_DIR")
	}
	root := ts.MkAbs(args[0])
	var caps []archivetest.Capture
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		body, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		rel = strings.TrimSuffix(filepath.ToSlash(rel), "index.html")
		caps = append(caps, archivetest.Capture{URL: "https://example.org/" + rel, Time: at.Truncate(time.Second), Body: body})
		return err
	})
	ts.Check(err)
	srv, err := archivetest.New(caps, archivetest.Config{})
	ts.Check(err)
	ts.Defer(srv.Close)
	ts.Setenv("ARCHIVE", srv.URL)
}
