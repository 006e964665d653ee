package recover_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestUnwritableOutputIsAnError: an output directory that takes no files
// is an error naming it (ErrWrite), not a partial recovery with every
// segment "short" as though blocks were missing; no report claims to be
// saved there.
func TestUnwritableOutputIsAnError(t *testing.T) {
	site, owner := sitetest.Injected(t)
	out := t.TempDir()
	sitetest.Unwritable(t, out)
	rep, err := sitetest.RecoverDir(site, lzrecover.Options{OwnerKey: owner, Out: out, StateDir: t.TempDir()})
	if !errors.Is(err, lzrecover.ErrWrite) || errors.Is(err, lzrecover.ErrPartial) {
		t.Fatalf("err = %v, want ErrWrite and not ErrPartial", err)
	}
	if !strings.Contains(err.Error(), out) {
		t.Errorf("the error does not name %s: %v", out, err)
	}
	if rep != nil && rep.Saved != "" {
		t.Errorf("report said saved in %s", rep.Saved)
	}
}

// TestSegmentThatCannotBeWrittenIsNotShort: when the output directory
// takes files but one segment's directory there refuses them (a full
// disk, a read-only mount below --out), that segment is "unwritten",
// its blocks were all there; the run fails with ErrWrite naming the
// directory, while the other segment is restored and the report saved.
func TestSegmentThatCannotBeWrittenIsNotShort(t *testing.T) {
	site, owner := sitetest.Injected(t)
	out := t.TempDir()
	app := filepath.Join(out, "app")
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	sitetest.Unwritable(t, app)
	rep, err := sitetest.RecoverDir(site, lzrecover.Options{OwnerKey: owner, Out: out, StateDir: t.TempDir()})
	if !errors.Is(err, lzrecover.ErrWrite) || !strings.Contains(err.Error(), out) {
		t.Fatalf("err = %v, want ErrWrite naming %s", err, out)
	}
	status := map[string]string{}
	for _, s := range rep.Segments {
		status[s.Name] = s.Status
	}
	if status["app"] != "unwritten" || status["etc"] != "rebuilt" {
		t.Errorf("segments %v, want app unwritten and etc rebuilt", status)
	}
	if rep.Saved != filepath.Join(out, lzrecover.ReportFile) {
		t.Errorf("report saved as %q", rep.Saved)
	}
}
