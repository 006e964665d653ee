package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
)

// TestInjectDefaults: the flags' defaults are injector.DefaultOptions; a
// config file changes only what it sets; flags override both.
func TestInjectDefaults(t *testing.T) {
	d := injector.DefaultOptions()
	conf := filepath.Join(t.TempDir(), "lazarus.toml")
	if err := os.WriteFile(conf, []byte("page_budget = \"64KiB\"\nredundancy = 2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want func(o *injector.Options)
	}{
		{nil, func(o *injector.Options) {}},
		{[]string{"--config", conf}, func(o *injector.Options) { o.PageBudget, o.Redundancy = 64<<10, 2 }},
		{[]string{"--config", conf, "--redundancy", "3", "--dump-timeout", "1m"}, func(o *injector.Options) {
			o.PageBudget, o.Redundancy, o.DumpTimeout = 64<<10, 3, time.Minute
		}},
	}
	for _, c := range cases {
		cmd := &injectCmd{stderr: io.Discard}
		if _, ok := cmd.parse(c.args, io.Discard); !ok {
			t.Fatalf("%q: not parsed", c.args)
		}
		want := d
		c.want(&want)
		got := cmd.opts
		if got.MaxBlockBytes != want.MaxBlockBytes || got.PageBudget != want.PageBudget || got.MaxPageBytes != want.MaxPageBytes ||
			got.Redundancy != want.Redundancy || got.KeepPrevious != want.KeepPrevious || got.DumpTimeout != want.DumpTimeout {
			t.Errorf("%q: options %+v, want %+v", c.args, got, want)
		}
	}
}

// TestInjectConfigBadValue: a bad value in the config file is a usage
// error, never silently replaced by the default.
func TestInjectConfigBadValue(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "lazarus.toml")
	if err := os.WriteFile(conf, []byte("dump_timeout = \"soon\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	code, ok := (&injectCmd{stderr: &stderr}).parse([]string{"--config", conf}, &stderr)
	if ok || code != exitUsage || !strings.Contains(stderr.String(), `dump_timeout "soon"`) {
		t.Errorf("code %d, ok %v, stderr %q; want a usage error naming dump_timeout", code, ok, stderr.String())
	}
}
