package recover_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// writePages writes crafted pages into a fresh mirror directory.
func writePages(t *testing.T, pages map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, p := range pages {
		sitetest.WriteFile(t, dir, name, p)
	}
	return dir
}

var craftGen = codec.Generation{ID: manifest.ID{0xC1}, Time: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}

// TestPayloadStaysInsideOut: a signed payload (a stolen server.key) whose
// top-level names are recover's own files, as links pointing outside
// --out. Recover refuses the segment, writes its report as a file in
// --out, and never writes outside.
func TestPayloadStaysInsideOut(t *testing.T) {
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		entries func(victim string) []bundle.Entry
	}{
		// recovery.json as an absolute link to a file outside --out.
		{"report link, absolute", func(v string) []bundle.Entry {
			return []bundle.Entry{linkEntry("recovery.json", v), dirEntry("app"), fileEntry("app/x", "x\n")}
		}},
		// recovery.json as a relative link climbing out of --out.
		{"report link, relative", func(v string) []bundle.Entry {
			return []bundle.Entry{linkEntry("recovery.json", "../victim/target"), dirEntry("app"), fileEntry("app/x", "x\n")}
		}},
		// A dangling link: following it would create the file.
		{"report link, dangling", func(v string) []bundle.Entry {
			return []bundle.Entry{linkEntry("recovery.json", filepath.Join(filepath.Dir(v), "created")), dirEntry("app")}
		}},
		// The journal directory as a link outside.
		{"journal link", func(v string) []bundle.Entry {
			return []bundle.Entry{linkEntry(lzrecover.JournalDir, filepath.Dir(v)), dirEntry("app")}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			victim := filepath.Join(top, "victim", "target")
			sitetest.WriteFile(t, top, "victim/target", []byte("precious\n"))
			pages := crafted{gen: craftGen}.make(t, server.Sealer(), codec.Input{Name: "app", Entries: tc.entries(victim)})
			mirror := writePages(t, pages)
			out := filepath.Join(top, "out")
			rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
				OwnerKey: owner.Marshal(), Out: out, StateDir: filepath.Join(out, lzrecover.JournalDir),
				Sources: []lzrecover.Source{source.DirSource{Dir: mirror}}})
			if !errors.Is(err, lzrecover.ErrPartial) || len(rep.Segments) != 1 || !strings.Contains(rep.Segments[0].Detail, "reserved") {
				t.Fatalf("want the segment refused as reserved, got %v, %+v", err, rep.Segments)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
				t.Fatalf("the file outside --out was overwritten: %q", b)
			}
			if _, err := os.Lstat(filepath.Join(top, "victim", "created")); err == nil {
				t.Fatal("a file was created outside --out")
			}
			info, err := os.Lstat(filepath.Join(out, lzrecover.ReportFile))
			if err != nil || !info.Mode().IsRegular() {
				t.Fatalf("report: %v %v", info, err)
			}
		})
	}
}

// TestReportReplacesLink: a link already sitting at recovery.json (from
// an older tool, or planted) is replaced by the report, not followed.
func TestReportReplacesLink(t *testing.T) {
	top := t.TempDir()
	sitetest.WriteFile(t, top, "victim", []byte("precious\n"))
	out := filepath.Join(top, "out")
	os.MkdirAll(out, 0o755)
	if err := os.Symlink("../victim", filepath.Join(out, lzrecover.ReportFile)); err != nil {
		t.Fatal(err)
	}
	if err := (&lzrecover.Report{}).Save(out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(top, "victim")); string(b) != "precious\n" {
		t.Fatalf("followed the link: %q", b)
	}
	if info, err := os.Lstat(filepath.Join(out, lzrecover.ReportFile)); err != nil || !info.Mode().IsRegular() {
		t.Fatalf("report: %v %v", info, err)
	}
}

// TestJournalLinksLeadNowhere: links planted in the journal (where a
// capture's temporary file or the capture itself will be) neither make a
// re-run write through them nor read through them.
func TestJournalLinksLeadNowhere(t *testing.T) {
	site, owner := sitetest.Injected(t)
	top := t.TempDir()
	sitetest.WriteFile(t, top, "victim", []byte("precious\n"))
	victim := filepath.Join(top, "victim")
	out := filepath.Join(top, "out")
	state := filepath.Join(out, lzrecover.JournalDir)
	src := archived{source.DirSource{Dir: site}}
	os.MkdirAll(filepath.Join(state, "captures"), 0o700)
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	for _, f := range files {
		h := sha256.Sum256([]byte(src.Name() + "\x00" + f))
		name := filepath.Join(state, "captures", hex.EncodeToString(h[:16]))
		os.Symlink(victim, name+".tmp")
		if strings.HasSuffix(f, "p3.html") {
			os.Symlink(victim, name) // read back as if it were the capture
		}
	}
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
		OwnerKey: owner, Out: out, StateDir: state, PagesDir: filepath.Join(out, "pages"),
		Sources: []lzrecover.Source{src}})
	if err != nil {
		t.Fatalf("%v %+v", err, rep.Problems)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Fatalf("wrote through a planted journal link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "pages", "p3.html")); strings.Contains(string(b), "precious") {
		t.Fatal("read a capture through a planted link")
	}
}
