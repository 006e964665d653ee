package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// TestDamagedArchiveState: a damaged archive-state.json stops inject
// with exit 1 (an error, nothing changed, as for a damaged state.json;
// not a usage error) and capture with exit 1, each saying how to go on:
// once it is moved aside, capture --requests off records the archives'
// state again and inject runs.
func TestDamagedArchiveState(t *testing.T) {
	d := newDeploySite(t)
	d.inject(t)
	path := d.s.Path("state/" + genstate.File)
	if err := os.WriteFile(path, []byte(`{"version":1,`), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(d.s.Path("site/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := runInject([]string{"--site", d.s.Pages(), "--site-url", d.url, "--key", d.server, "--include", d.s.Path("src/app"),
		"--state", d.s.Path("state")}, &stdout, &stderr)
	after, _ := os.ReadFile(d.s.Path("site/index.html"))
	if code != exitError || !strings.Contains(stderr.String(), "damaged") || !strings.Contains(stderr.String(), "hint: move archive-state.json aside") ||
		!bytes.Equal(before, after) {
		t.Fatalf("inject: exit %d, page changed %v\n%s", code, !bytes.Equal(before, after), stderr.String())
	}
	code, _, errOut, reqs := d.captureWith(t, archivetest.SPNConfig{}, "--access-key-file", d.ia)
	if code != exitError || len(reqs) != 0 || !strings.Contains(errOut, "hint: move archive-state.json aside") {
		t.Fatalf("capture: exit %d, %d requests\n%s", code, len(reqs), errOut)
	}
	if err := os.Rename(path, path+".damaged"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut, _ := d.captureWith(t, archivetest.SPNConfig{}, "--requests", "off"); code != exitPartial {
		t.Fatalf("capture --requests off: exit %d\n%s\n%s", code, out, errOut)
	}
	if rec, err := genstate.Read(d.s.Path("state")); err != nil || !rec.Confirming() {
		t.Fatalf("record after capture --requests off: %+v, %v", rec, err)
	}
	d.inject(t)
}
