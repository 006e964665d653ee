package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// TestExampleCaptureConfig: docs/recipes/lazarus.toml with every setting
// and table uncommented parses, and the defaults its [capture] table
// shows are lazarus capture's own.
func TestExampleCaptureConfig(t *testing.T) {
	raw, err := os.ReadFile("../../docs/recipes/lazarus.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := loadInjectConfig(exampleConfigUncommented(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Dump) == 0 || len(cfg.volatiles()) == 0 {
		t.Errorf("the example's [dump] and [volatile] tables were not read: %+v %+v", cfg.Dump, cfg.Volatile)
	}
	c := &captureCmd{}
	c.fromConfig(cfg)
	fs := flag.NewFlagSet("capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.flags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if c.requests != requestsAuto || c.margin != capture.DefaultMargin || c.attempts != capture.DefaultAttempts || c.wait != 0 ||
		c.waitEvery != capture.DefaultWaitEvery || c.retry != capture.DefaultRetry || c.grace != capture.DefaultGrace ||
		c.waitLive != defaultWaitLive || c.spnBase != spn.DefaultBase || c.pending != 0 || c.max != 0 || c.archiveRate != 0 ||
		c.rate != spn.DefaultAnonymousRate.String() || len(c.sources.vals) != 2 {
		t.Errorf("the defaults shown differ from the real ones: %+v", c)
	}
	if c.accessKeys == "" || !filepath.IsAbs(c.accessKeys) || c.contact == "" {
		t.Errorf("commented settings not read: %+v", c)
	}
}

// TestCaptureConfigBadValues: bad values in [capture] are errors naming
// the setting, never replaced by a default.
func TestCaptureConfigBadValues(t *testing.T) {
	for body, want := range map[string]string{
		"[capture]\nrequests = \"sometimes\"\n": "capture.requests",
		"[capture]\nwait_every = \"0s\"\n":      "capture.wait_every",
		"[capture]\nretry = \"soon\"\n":         "capture.retry",
		"[capture]\nrate = \"12/day\"\n":        "capture.rate",
		"[capture]\nmargin = -1\n":              "capture.margin -1: want 0 or more",
		"[capture]\nattempts = -2\n":            "capture.attempts -2: want 0 or more",
		"[capture]\ncolour = \"blue\"\n":        "capture.colour",
	} {
		conf := filepath.Join(t.TempDir(), "lazarus.toml")
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadInjectConfig(conf); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", body, err, want)
		}
	}
}
