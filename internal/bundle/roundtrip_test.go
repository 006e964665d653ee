package bundle

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// node kinds of a test tree spec.
const (
	specFile = iota
	specDir
	specLink
)

// spec describes one object of a test tree on disk.
type spec struct {
	name   string
	kind   int
	data   []byte
	mode   fs.FileMode
	target string
	mtime  time.Time
}

func sFile(name string, data []byte, mode fs.FileMode) spec {
	return spec{name: name, kind: specFile, data: data, mode: mode, mtime: testTime}
}

func sDir(name string, mode fs.FileMode) spec {
	return spec{name: name, kind: specDir, mode: mode, mtime: testTime.Add(time.Hour)}
}

func sLink(name, target string) spec { return spec{name: name, kind: specLink, target: target} }

// makeTree creates the specs below root, setting directory modes and
// times last, deepest first.
func makeTree(t testing.TB, root string, specs []spec) {
	t.Helper()
	for _, s := range specs {
		p := filepath.Join(root, filepath.FromSlash(s.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch s.kind {
		case specDir:
			err = os.MkdirAll(p, 0o755)
		case specLink:
			err = os.Symlink(s.target, p)
		case specFile:
			err = os.WriteFile(p, s.data, 0o600)
			if err == nil {
				err = setModeTime(p, s.mode, s.mtime)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	dirs := slices.Clone(specs)
	slices.SortFunc(dirs, func(a, b spec) int { return strings.Compare(b.name, a.name) })
	for _, s := range dirs {
		if s.kind == specDir {
			if err := setModeTime(filepath.Join(root, s.name), s.mode, s.mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func setModeTime(p string, mode fs.FileMode, mtime time.Time) error {
	if err := os.Chmod(p, mode); err != nil {
		return err
	}
	return os.Chtimes(p, mtime, mtime)
}

// roundTripCases is the grid of trees that must survive
// Collect → Write → Extract unchanged.
var roundTripCases = []struct {
	name  string
	specs []spec
}{
	{"empty segment", nil},
	{"zero-byte file", []spec{sFile("empty", nil, 0o644)}},
	{"one byte", []spec{sFile("one", []byte{'x'}, 0o644)}},
	{"511 bytes", []spec{sFile("f", randomBytes(1, 511), 0o644)}},
	{"512 bytes", []spec{sFile("f", randomBytes(2, 512), 0o644)}},
	{"513 bytes", []spec{sFile("f", randomBytes(3, 513), 0o644)}},
	{"64KiB-1", []spec{sFile("f", randomBytes(4, 64<<10-1), 0o644)}},
	{"64KiB", []spec{sFile("f", randomBytes(5, 64<<10), 0o644)}},
	{"64KiB+1", []spec{sFile("f", randomBytes(6, 64<<10+1), 0o644)}},
	{"64KiB zeros+1", []spec{sFile("f", append(make([]byte, 64<<10), 1), 0o644)}},
	{"3MiB random", []spec{sFile("big.bin", randomBytes(7, 3<<20+17), 0o644)}},
	{"name over 100", []spec{sFile(strings.Repeat("n", 150), []byte("long"), 0o644)}},
	{"name over 255", []spec{sFile(strings.Repeat("d", 200)+"/"+strings.Repeat("f", 255), []byte("longer"), 0o644)}},
	{"unicode names", []spec{
		sFile("café/日本語.txt", []byte("konnichiwa"), 0o644),
		sFile("emoji 🎉 party.html", []byte("<p>🎉</p>"), 0o644),
		sFile("spaces and 'quotes'", []byte("q"), 0o644),
	}},
	{"nested dirs", []spec{
		sDir("a", 0o755), sDir("a/b", 0o750), sDir("a/b/c", 0o700), sDir("a/b/c/d", 0o755),
		sFile("a/b/c/d/leaf.txt", []byte("leaf"), 0o644), sDir("a/empty", 0o755),
	}},
	{"symlinks", []spec{
		sFile("target.txt", []byte("t"), 0o644),
		sLink("relative", "target.txt"), sLink("up", "../outside"),
		sLink("absolute", "/usr/share/javascript/jquery"), sLink("dangling", "no/such/file"),
		sDir("d", 0o755), sLink("d/parent", ".."),
	}},
	{"modes", []spec{
		sFile("private", []byte("p"), 0o600), sFile("exec", []byte("#!/bin/sh\n"), 0o755),
		sFile("setuid", []byte("s"), 0o755|fs.ModeSetuid), sFile("setgid", []byte("g"), 0o755|fs.ModeSetgid),
		sFile("read-only", []byte("r"), 0o400), sDir("sticky", 0o777|fs.ModeSticky),
	}},
	{"nanosecond mtimes", []spec{
		{name: "ns", kind: specFile, data: []byte("ns"), mode: 0o644, mtime: time.Unix(1234567890, 987654321)},
		{name: "old", kind: specFile, data: []byte("old"), mode: 0o644, mtime: time.Unix(1, 1)},
		{name: "dir", kind: specDir, mode: 0o755, mtime: time.Unix(1600000000, 1)},
	}},
}

// TestRoundTripGrid collects each tree, packs it, extracts it and compares
// the result with the original (contents, modes, times, link targets).
func TestRoundTripGrid(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src")
			if err := os.Mkdir(src, 0o755); err != nil {
				t.Fatal(err)
			}
			makeTree(t, src, tc.specs)
			if err := setModeTime(src, 0o751, testTime); err != nil {
				t.Fatal(err)
			}
			for _, prefix := range []string{"", "app/"} {
				checkRoundTrip(t, src, prefix)
			}
		})
	}
}

// checkRoundTrip packs src under prefix, extracts it into a new directory
// and compares.
func checkRoundTrip(t *testing.T, src, prefix string) {
	t.Helper()
	entries, warnings, err := Collect(src, prefix, CollectOptions{})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Collect(%q): %v, warnings %v", prefix, err, warnings)
	}
	payload, st := pack(t, entries)
	out := t.TempDir()
	rep, err := Extract(bytes.NewReader(payload), out, ExtractOptions{KeepSetuid: true})
	if err != nil {
		t.Fatalf("Extract(prefix %q): %v", prefix, err)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems: %v", rep.Problems)
	}
	if rep.Files != st.Files || rep.Bytes != st.Bytes || rep.Symlinks != st.Symlinks || rep.Dirs != st.Dirs || rep.TarSize != st.TarSize {
		t.Errorf("report %+v does not match stats %+v", rep, st)
	}
	want, got := snapshot(t, src), snapshot(t, filepath.Join(out, prefix))
	if prefix == "" {
		delete(want, ".") // the root itself is only recorded under a prefix
		delete(got, ".")
	}
	if d := diffSnapshots(want, got); d != "" {
		t.Errorf("prefix %q: restored tree differs:\n%s", prefix, d)
	}
}

// TestRoundTripHardLinkAndDevices extracts hand-made entries Write never
// produces: hard links are restored as links, devices are reported.
func TestRoundTripHardLinkAndDevices(t *testing.T) {
	payload := hostile(t,
		reg("orig", "shared"),
		hardlinkHdr("link", "orig"),
		tarEntry{hdr: tarHeaderOf("null", '3')},
		tarEntry{hdr: tarHeaderOf("disk", '4')},
		tarEntry{hdr: tarHeaderOf("pipe", '6')},
	)
	out := t.TempDir()
	rep, err := Extract(bytes.NewReader(payload), out, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.Stat(filepath.Join(out, "orig"))
	b, err := os.Stat(filepath.Join(out, "link"))
	if err != nil || !os.SameFile(a, b) {
		t.Errorf("link is not a hard link to orig: %v", err)
	}
	if rep.HardLinks != 1 || rep.Files != 1 || len(rep.Problems) != 3 {
		t.Errorf("report %+v, want 1 file, 1 hard link, 3 problems", rep)
	}
	for _, name := range []string{"null", "disk", "pipe"} {
		if _, err := os.Lstat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s was created", name)
		}
	}
}

// TestExtractClearsSetuid checks the default: setuid and setgid bits are
// dropped and reported.
func TestExtractClearsSetuid(t *testing.T) {
	payload, _ := pack(t, []Entry{memFile("su", []byte("x"), 0o755|fs.ModeSetuid), memFile("sg", []byte("y"), 0o755|fs.ModeSetgid)})
	out := t.TempDir()
	rep, err := Extract(bytes.NewReader(payload), out, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"su", "sg"} {
		info, err := os.Stat(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode() != 0o755 {
			t.Errorf("%s: mode %v, want -rwxr-xr-x", name, info.Mode())
		}
	}
	if len(rep.Problems) != 2 {
		t.Errorf("problems %v, want two cleared-bit reports", rep.Problems)
	}
}
