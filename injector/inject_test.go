package injector

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// fixture is a site, a server side and keys in a temp dir.
type fixture struct {
	dir       string
	owner     []byte
	serverKey []byte
}

func newFixture(t *testing.T, pages, files int) *fixture {
	t.Helper()
	dir := t.TempDir()
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, owner: owner.Marshal(), serverKey: server.Marshal()}
	var links strings.Builder
	for i := 0; i < pages; i++ {
		fmt.Fprintf(&links, "<a href=\"p%d.html\">%d</a>\n", i, i)
		f.write(t, fmt.Sprintf("site/p%d.html", i), fmt.Sprintf("<html><body><p>Page %d</p></body></html>\n", i))
	}
	f.write(t, "site/index.html", "<html><body>\n"+links.String()+"</body></html>\n")
	for i := 0; i < files; i++ {
		f.write(t, fmt.Sprintf("src/app/pkg%03d/file%04d.php", i/50, i), fmt.Sprintf("<?php // file %d\necho %d;\n", i, i*i))
	}
	return f
}

func (f *fixture) write(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) options() Options {
	o := DefaultOptions()
	o.Includes = []Include{{Path: filepath.Join(f.dir, "src/app")}}
	o.ServerKey, o.SiteURL = f.serverKey, "https://example.org/"
	o.SiteDir, o.StateDir = filepath.Join(f.dir, "site"), filepath.Join(f.dir, "state")
	o.MaxBlockBytes = 4 << 10
	o.Now = func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }
	return o
}

func (f *fixture) recover(t *testing.T) (*lzrecover.Report, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	rep, err := recoverDir(filepath.Join(f.dir, "site"), lzrecover.Options{OwnerKey: f.owner, Out: out})
	if err != nil {
		t.Fatalf("recover: %v (%+v)", err, rep)
	}
	return rep, out
}

// TestLargeListing: thousands of files overflow the manifest comment; the
// listing travels as the _listing segment and recovery still works.
func TestLargeListing(t *testing.T) {
	f := newFixture(t, 60, 3000)
	res, err := Run(context.Background(), f.options())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.Segments {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "app,_listing" {
		t.Fatalf("segments %v, want the listing in its own segment", names)
	}
	rep, out := f.recover(t)
	if len(rep.Segments) != 1 || rep.Segments[0].Files != 3000 {
		t.Fatalf("recovered %+v", rep.Segments)
	}
	got, err := os.ReadFile(filepath.Join(out, "app/pkg059/file2999.php"))
	if err != nil || !strings.Contains(string(got), "echo 8994001;") {
		t.Fatalf("file2999: %q %v", got, err)
	}
}

// TestLocked: a second concurrent run is refused and changes nothing.
func TestLocked(t *testing.T) {
	f := newFixture(t, 5, 3)
	o := f.options()
	os.MkdirAll(o.StateDir, 0o700)
	release, err := lock(o.StateDir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrLocked) {
		t.Fatalf("got %v, want ErrLocked", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "site/index.html")); strings.Contains(string(b), "lazarus") {
		t.Fatal("a refused run changed a page")
	}
}

// TestInterruptedRunIsCompleted: a run that dies after saving its state
// but before writing the pages leaves the pages as they were; the next run
// writes them, and stale temporary files are cleaned up.
func TestInterruptedRunIsCompleted(t *testing.T) {
	f := newFixture(t, 8, 5)
	crash := errors.New("simulated crash")
	testHookAfterCommit = func() error { return crash }
	_, err := Run(context.Background(), f.options())
	testHookAfterCommit = func() error { return nil }
	if !errors.Is(err, crash) {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "site/index.html")); strings.Contains(string(b), "lazarus") {
		t.Fatal("pages changed before the crash point")
	}
	f.write(t, "site/.lazarus-tmp-123", "half a page")
	res, err := Run(context.Background(), f.options())
	if err != nil {
		t.Fatal(err)
	}
	if res.New || !res.Completed || res.Written == 0 {
		t.Fatalf("second run: new=%v completed=%v written=%d; want the saved generation written out", res.New, res.Completed, res.Written)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "site/.lazarus-tmp-123")); !os.IsNotExist(err) {
		t.Fatal("stale temporary file left behind")
	}
	f.recover(t)
}

func TestSnippetName(t *testing.T) {
	for url, want := range map[string]string{
		"/": "index.html", "/a/": "a/index.html", "/a.html": "a.html", "/a": "a.html", "/a/b.htm": "a/b.htm",
		"/../etc/passwd": "etc/passwd.html",
	} {
		if got, err := snippetName(url); err != nil || got != want {
			t.Errorf("snippetName(%q) = %q, %v; want %q", url, got, err, want)
		}
	}
}

// TestVirtualCarriers: a bundle planned for unknown pages names no pages,
// holds every block, and is sized for at least Carriers pages.
func TestVirtualCarriers(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "app")
	noise := make([]byte, 200<<10)
	rand.Read(noise)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "data.bin"), noise, 0o644); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Includes = []Include{{Path: src}}
	o.Public, o.SiteURL = true, "https://example.org/"
	o.MaxBlockBytes, o.PageBudget = 4096, 16<<10
	o.BundleDir, o.StateDir, o.Carriers = filepath.Join(dir, "bundle"), filepath.Join(dir, "state"), 8
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// Expected: 200 KiB needs far more than 8 pages of 16 KiB: the plan
	// grows the stand-ins to fit, and no stand-in URL leaks out.
	if res.Carriers <= 8 || len(res.Pages) != 0 {
		t.Fatalf("carriers %d, pages %d", res.Carriers, len(res.Pages))
	}
	plan, err := os.ReadFile(filepath.Join(o.BundleDir, "generations", res.Generation, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plan), virtualPrefix) || !strings.Contains(string(plan), `"pages": {}`) {
		t.Fatalf("plan names pages: %s", plan)
	}
	o.URLs = []string{"/"}
	if _, err := Run(context.Background(), o); err == nil {
		t.Fatal("Carriers with a URL list accepted")
	}
}
