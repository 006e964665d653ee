package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/injector"
)

// TestRedundancyTargetFlags: --redundancy and --target give the same plan
// whatever their order; a ratio and a target do not combine, in either
// order; max plans by the target and then fills.
func TestRedundancyTargetFlags(t *testing.T) {
	cases := []struct {
		args   []string
		target float64
		fill   bool
		ratio  float64
		err    string
	}{
		{nil, injector.DefaultTarget, false, 0, ""},
		{[]string{"--target", "99.99%"}, 0.9999, false, 0, ""},
		{[]string{"--redundancy", "max"}, injector.DefaultTarget, true, 0, ""},
		{[]string{"--redundancy", "max", "--target", "0.99"}, 0.99, true, 0, ""},
		{[]string{"--target", "0.99", "--redundancy", "max"}, 0.99, true, 0, ""},
		{[]string{"--redundancy", "1.5"}, 0, false, 1.5, ""},
		{[]string{"--redundancy", "1.5", "--target", "0.99"}, 0, false, 0, "give one of them"},
		{[]string{"--target", "0.99", "--redundancy", "1.5"}, 0, false, 0, "give one of them"},
		{[]string{"--target", "0.99", "--redundancy", "1.5", "--redundancy", "auto"}, 0.99, false, 0, ""},
		{[]string{"--target", "50 %"}, 0.5, false, 0, ""},
	}
	for _, c := range cases {
		cmd := &injectCmd{stderr: io.Discard}
		args := append([]string{"--site-url", "https://example.org/", "--public", "--include", ".", "--site", ".", "--state", t.TempDir()}, c.args...)
		if _, ok := cmd.parse(args, io.Discard, io.Discard); !ok {
			t.Fatalf("%v: parse failed", c.args)
		}
		o, err := cmd.options()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: %v, want %q", c.args, err, c.err)
			}
		case err != nil:
			t.Errorf("%v: %v", c.args, err)
		case o.Target != c.target || o.Fill != c.fill || c.ratio != 0 && o.Redundancy != c.ratio:
			t.Errorf("%v: target %v fill %v redundancy %v, want %v %v %v", c.args, o.Target, o.Fill, o.Redundancy, c.target, c.fill, c.ratio)
		}
	}
	for _, bad := range []string{"0", "1", "100%", "1e-320", "nan", "2"} {
		if _, err := parseTarget(bad); err == nil {
			t.Errorf("--target %s accepted", bad)
		}
	}
	for _, bad := range []string{"1e-300", "0", "-1", "256", "nan", "inf"} {
		o := injector.DefaultOptions()
		if err := o.SetRedundancy(bad); err == nil {
			t.Errorf("--redundancy %s accepted", bad)
		}
	}
}

// TestReadStatusRefusesNonFiles: --status takes a regular file of at most
// a status report's size, checked before reading (a 2 GB sparse file or
// /dev/zero used to be read up to the 64 MiB cap first).
func TestReadStatusRefusesNonFiles(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 2<<30); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/dev/zero": "not a regular file", big: "more than a status report's", t.TempDir(): "not a regular file"} {
		o := injector.DefaultOptions()
		if err := readStatus(path, &o, io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--status %s: %v, want %q", path, err, want)
		}
	}
}
