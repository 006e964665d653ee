package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
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
		if _, ok := cmd.parse(c.args, io.Discard, io.Discard); !ok {
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
	code, ok := (&injectCmd{stderr: &stderr}).parse([]string{"--config", conf}, io.Discard, &stderr)
	if ok || code != exitUsage || !strings.Contains(stderr.String(), `dump_timeout "soon"`) {
		t.Errorf("code %d, ok %v, stderr %q; want a usage error naming dump_timeout", code, ok, stderr.String())
	}
}

// TestExampleConfig: docs/recipes/lazarus.toml names every setting, its
// commented-out lines parse, and the defaults they show are the real
// ones. (recipes.txt runs the file as written.)
func TestExampleConfig(t *testing.T) {
	raw, err := os.ReadFile("../../docs/recipes/lazarus.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[injectConfig](), reflect.TypeFor[captureConfig]()} {
		for i := range typ.NumField() {
			if !typ.Field(i).IsExported() {
				continue // what reading the file learns, not a setting
			}
			key := typ.Field(i).Tag.Get("toml")
			if !regexp.MustCompile(`(?m)^#?(` + key + ` = |\[` + key + `\]$)`).Match(raw) {
				t.Errorf("setting %s is missing", key)
			}
		}
	}
	// Expected: with every line uncommented the file parses; the sizes,
	// redundancy, generations kept and dump timeout it shows as defaults
	// are injector.DefaultOptions.
	conf := exampleConfigUncommented(t, raw)
	cmd := &injectCmd{stderr: io.Discard}
	var stderr strings.Builder
	if _, ok := cmd.parse([]string{"--config", conf}, io.Discard, &stderr); !ok {
		t.Fatalf("every setting uncommented: %s", stderr.String())
	}
	d, got := injector.DefaultOptions(), cmd.opts
	if got.MaxBlockBytes != d.MaxBlockBytes || got.PageBudget != d.PageBudget || got.MaxPageBytes != d.MaxPageBytes ||
		got.Redundancy != d.Redundancy || got.Target != d.Target || got.Fill != d.Fill ||
		got.KeepPrevious != d.KeepPrevious || got.DumpTimeout != d.DumpTimeout || got.AllOrNothing || got.Public {
		t.Errorf("the defaults shown differ from the real ones: %+v", got)
	}
	if len(cmd.cfg.Exclude) == 0 || len(cmd.cfg.Dump) == 0 || len(cmd.cfg.Volatile["db"]) == 0 || cmd.cfg.Notice == "" || cmd.cfg.URLs == "" {
		t.Errorf("commented settings not read: %+v", cmd.cfg)
	}
}

// TestListFlagReplacesConfig: a list flag replaces the config file's list
// (as inject -h and docs/INJECT.md say); other settings of the file stay.
func TestListFlagReplacesConfig(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "lazarus.toml")
	body := "include = [\"/srv/a\", \"/srv/b\"]\nexclude = [\"*.log\"]\nnotice = \"n\"\n[dump]\ndb = \"true\"\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := &injectCmd{stderr: io.Discard}
	if _, ok := cmd.parse([]string{"--config", conf, "--include", "/srv/c", "--include", "/srv/d=d2"}, io.Discard, io.Discard); !ok {
		t.Fatal("not parsed")
	}
	if got := cmd.include.vals; !reflect.DeepEqual(got, []string{"/srv/c", "/srv/d=d2"}) {
		t.Errorf("includes %q, want the flags' only", got)
	}
	if cmd.exclude.vals[0] != "*.log" || cmd.dump.vals[0] != "db=true" || cmd.opts.Notice != "n" {
		t.Errorf("the file's other settings were lost: %q %q %q", cmd.exclude.vals, cmd.dump.vals, cmd.opts.Notice)
	}
}

// TestConfigCommandLineOnly: dry_run, accept_shrink, json and config are refused in the
// file with a message naming the flag, not as unknown settings.
func TestConfigCommandLineOnly(t *testing.T) {
	for key, flag := range cliOnly {
		conf := filepath.Join(t.TempDir(), "lazarus.toml")
		if err := os.WriteFile(conf, []byte(key+" = true\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		code, ok := (&injectCmd{stderr: io.Discard}).parse([]string{"--config", conf}, io.Discard, &stderr)
		if ok || code != exitUsage || !strings.Contains(stderr.String(), key+" is not a setting: "+flag) {
			t.Errorf("%s: code %d, stderr %q", key, code, stderr.String())
		}
	}
}

// TestVolatileFlag: each --volatile NAME=REGEXP goes to dump NAME, the
// config file's [volatile] table likewise; one naming no dump, or without
// a pattern, is a usage error naming it.
func TestVolatileFlag(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "lazarus.toml")
	body := "[dump]\ndb = \"true\"\nlog = \"true\"\n[volatile]\ndb = [\"^-- Dump completed\", \"_transient_\"]\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	volatile := func(args ...string) (map[string][]string, error) {
		cmd := &injectCmd{stderr: io.Discard}
		if _, ok := cmd.parse(args, io.Discard, io.Discard); !ok {
			t.Fatalf("%q: not parsed", args)
		}
		o, err := cmd.options()
		got := map[string][]string{}
		for _, d := range o.Dumps {
			got[d.Name] = d.Volatile
		}
		return got, err
	}
	got, err := volatile("--config", conf)
	if want := map[string][]string{"db": {"^-- Dump completed", "_transient_"}, "log": nil}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("from the file: %q, %v; want %q", got, err, want)
	}
	got, err = volatile("--config", conf, "--volatile", "log=^#")
	if want := map[string][]string{"db": nil, "log": {"^#"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the flag replaces the file's: %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"web=x", "db=", "db"} {
		if _, err := volatile("--config", conf, "--volatile", bad); err == nil || !strings.Contains(err.Error(), "--volatile "+`"`+bad+`"`) {
			t.Errorf("--volatile %s: %v, want an error naming it", bad, err)
		}
	}
}

// exampleConfigUncommented writes the example configuration raw with
// every setting uncommented (key, passphrase_file and public, which
// exclude one another, left out) and returns its path.
func exampleConfigUncommented(t *testing.T, raw []byte) string {
	t.Helper()
	all := regexp.MustCompile(`(?m)^#([a-z_]+ = |\[dump\]|\[volatile\])`).ReplaceAll(raw, []byte("$1"))
	all = regexp.MustCompile(`(?m)^(key|passphrase_file|public) = .*\n`).ReplaceAll(all, nil)
	conf := filepath.Join(t.TempDir(), "all.toml")
	if err := os.WriteFile(conf, all, 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}
