package lazarus_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

var update = flag.Bool("update", false, "inject testdata/site again into testdata/golden (after a deliberate change of the wire format)")

// goldenPassphrase is the passphrase-mode vector's passphrase, test-only
// as the keys are.
const goldenPassphrase = "test-only passphrase, protects nothing"

// A golden vector is the shared test site's pages as one version of
// inject wrote them, kept in testdata/golden/NAME: recovering the server
// side from them must give back testdata/site/src byte for byte, so a
// change that no longer reads pages already in the archives fails here.
var goldenVectors = []struct {
	name string
	// inject sets the vector's credentials; recover's are set to match.
	inject  func(o *injector.Options, server []byte)
	recover func(o *lzrecover.Options, owner []byte)
}{
	{"keyed",
		func(o *injector.Options, server []byte) { o.ServerKey = server },
		func(o *lzrecover.Options, owner []byte) { o.OwnerKey = owner }},
	{"passphrase",
		func(o *injector.Options, _ []byte) {
			o.Passphrase, o.PassphraseWorkFactor = []byte(goldenPassphrase), 10
		},
		func(o *lzrecover.Options, _ []byte) { o.Passphrase = []byte(goldenPassphrase) }},
	{"public",
		func(o *injector.Options, _ []byte) { o.Public = true },
		func(o *lzrecover.Options, _ []byte) { o.AllowUnsigned = true }},
}

// TestGoldenPagesRecover recovers each golden vector's pages and compares
// the restored tree with the site's server side. With -update it first
// injects the site again into every vector (the keys stay).
func TestGoldenPagesRecover(t *testing.T) {
	owner, server := goldenKeys(t)
	for _, v := range goldenVectors {
		t.Run(v.name, func(t *testing.T) {
			pages := filepath.Join("testdata", "golden", v.name)
			if *update {
				o := injector.DefaultOptions()
				v.inject(&o, server)
				injectGolden(t, o, pages)
			}
			o := lzrecover.DefaultOptions()
			v.recover(&o, owner)
			o.Out = filepath.Join(t.TempDir(), "out")
			o.SiteURL = "https://example.org/"
			o.Sources = []lzrecover.Source{source.DirSource{Dir: pages}}
			rep, err := lzrecover.Run(context.Background(), o)
			if err != nil {
				t.Fatalf("recover of %s: %v\n%s", pages, err, strings.Join(rep.Problems, "\n"))
			}
			got := treeOf(t, o.Out)
			delete(got, "recovery.json") // the report, beside the files
			if want := treeOf(t, filepath.Join("testdata", "site", "src")); !equalTrees(got, want) {
				t.Fatalf("restored %q\nwant     %q", names(got), names(want))
			}
		})
	}
}

// goldenKeys reads the test-only keys from testdata/keys.
func goldenKeys(t *testing.T) (owner, server []byte) {
	t.Helper()
	owner, err := os.ReadFile(filepath.Join("testdata", "keys", keys.OwnerFileName))
	if err != nil {
		t.Fatal(err)
	}
	server, err = os.ReadFile(filepath.Join("testdata", "keys", keys.ServerFileName))
	if err != nil {
		t.Fatal(err)
	}
	return owner, server
}

// injectGolden injects a copy of testdata/site/pages, with the segments
// app and etc of testdata/site/src in blocks of 1 KiB, and writes the
// pages into dir, replacing what it held.
func injectGolden(t *testing.T, o injector.Options, dir string) {
	t.Helper()
	work := t.TempDir()
	site := filepath.Join(work, "site")
	if err := os.CopyFS(site, os.DirFS(filepath.Join("testdata", "site", "pages"))); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "site", "src"))
	if err != nil {
		t.Fatal(err)
	}
	o.Includes = []injector.Include{{Path: filepath.Join(src, "app")}, {Path: filepath.Join(src, "etc")}}
	o.SiteURL, o.SiteDir, o.StateDir = "https://example.org/", site, filepath.Join(work, "state")
	o.Target, o.Redundancy, o.MaxBlockBytes = 0, 1, 1024
	o.Now = func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) }
	if _, err := injector.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(site)); err != nil {
		t.Fatal(err)
	}
}

// treeOf maps every regular file under dir (slash-separated, relative)
// to its contents.
func treeOf(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	tree := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		tree[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// equalTrees reports whether a and b hold the same files.
func equalTrees(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for n, x := range a {
		if y, ok := b[n]; !ok || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// names lists a tree's files with their sizes.
func names(tree map[string][]byte) []string {
	var out []string
	for n, b := range tree {
		out = append(out, fmt.Sprintf("%s (%d B)", n, len(b)))
	}
	slices.Sort(out)
	return out
}
