package recover_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestClearedSetuidBitsAreProblems: a segment whose files and
// directories were packed with setuid or setgid bits is restored without
// them (a successful recovery), and the report names every such entry
// among its problems, so what was restored otherwise than packed is said.
func TestClearedSetuidBitsAreProblems(t *testing.T) {
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	shared, tool := dirEntry("app/uploads"), fileEntry("app/tool", "#!/bin/sh\n")
	shared.Mode |= fs.ModeSetgid
	tool.Mode |= fs.ModeSetuid | 0o111
	pages := crafted{gen: craftGen}.make(t, server.Sealer(), codec.Input{Name: "app",
		Entries: []bundle.Entry{dirEntry("app"), tool, shared, fileEntry("app/uploads/a.jpg", "jpg")}})
	out := filepath.Join(t.TempDir(), "out")
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
		OwnerKey: owner.Marshal(), Out: out, StateDir: filepath.Join(out, lzrecover.JournalDir),
		Sources: []lzrecover.Source{source.DirSource{Dir: writePages(t, pages)}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"segment app: app/tool: cleared setuid/setgid bits", "segment app: app/uploads: cleared setuid/setgid bits"} {
		if !slices.Contains(rep.Problems, want) {
			t.Errorf("problems %q: want %q", rep.Problems, want)
		}
	}
	for name, want := range map[string]fs.FileMode{"app/tool": 0o755, "app/uploads": fs.ModeDir | 0o755} {
		if info, err := os.Stat(filepath.Join(out, name)); err != nil || info.Mode() != want {
			t.Errorf("%s: %v, %v; want mode %v", name, info.Mode(), err, want)
		}
	}
}
