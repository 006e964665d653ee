package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// TestExampleCaptureConfig: the [capture] table of
// docs/recipes/lazarus.toml, every line uncommented, parses, and the
// defaults it shows are lazarus capture's own.
func TestExampleCaptureConfig(t *testing.T) {
	raw, err := os.ReadFile("../../docs/recipes/lazarus.toml")
	if err != nil {
		t.Fatal(err)
	}
	all := regexp.MustCompile(`(?m)^#([a-z_]+ = |\[dump\])`).ReplaceAll(raw, []byte("$1"))
	all = regexp.MustCompile(`(?m)^(key|passphrase_file|public) = .*\n`).ReplaceAll(all, nil)
	conf := filepath.Join(t.TempDir(), "all.toml")
	if err := os.WriteFile(conf, all, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadInjectConfig(conf)
	if err != nil {
		t.Fatal(err)
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
