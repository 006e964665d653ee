package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sim"
)

// small makes runs fast.
var small = []string{"--pages", "30", "--runs", "3", "--days", "40", "--backup", "64KiB", "--change-every", "10"}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown flag", []string{"--bogus"}, 2, "bogus"},
		{"bad size", []string{"--backup", "2XB"}, 2, "invalid size"},
		{"too few pages", []string{"--pages", "1"}, 2, "pages 1"},
		{"extra argument", []string{"extra"}, 2, "unexpected argument"},
		{"help", []string{"--help"}, 0, "-pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tt.args, &out, &errOut); code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.err) {
				t.Errorf("stderr %q does not mention %q", errOut.String(), tt.err)
			}
		})
	}
}

func TestRunText(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(small, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"lazarus", "round-robin", "random", "all-pages", "break-before-make", "Goals", "3 runs in"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(append([]string{"--json"}, small...), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rep struct {
		sim.Report
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if len(rep.Cells) != 20 || rep.Config.Backup != 64<<10 || rep.Config.Pages != 30 || rep.Seconds <= 0 {
		t.Errorf("report: %d cells, config %+v, %g s", len(rep.Cells), rep.Config, rep.Seconds)
	}
}

func TestSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"2MiB": 2 << 20, "512KiB": 512 << 10, "48K": 48 << 10, "1M": 1 << 20, "100": 100, " 7 B": 7} {
		var n int64
		if err := (sizeFlag{&n}).Set(in); err != nil || n != want {
			t.Errorf("%q: got %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1MiB", "2GiB", "1025MiB", "x", "1.5MiB"} {
		var n int64
		if err := (sizeFlag{&n}).Set(in); err == nil {
			t.Errorf("%q accepted as %d", in, n)
		}
	}
}

func FuzzSizeFlag(f *testing.F) {
	for _, s := range []string{"2MiB", "512KiB", "48K", "100", "", "-1", "9999999999999M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n int64
		if err := (sizeFlag{&n}).Set(s); err == nil && (n < 1 || n > sim.MaxBackup) {
			t.Errorf("%q accepted as %d, outside 1..%d", s, n, sim.MaxBackup)
		}
	})
}
