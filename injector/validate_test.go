package injector

import (
	"errors"
	"strings"
	"testing"
)

// TestValidate: each bad setting is refused with an *OptionError naming
// the Options field at fault, in words that name no flag or option of a
// caller (the CLI and the Caddy module word their own hints).
func TestValidate(t *testing.T) {
	f := newFixture(t, 1, 1)
	cases := map[string]struct {
		field  string
		mutate func(o *Options)
	}{
		"no sources":          {"Includes", func(o *Options) { o.Includes = nil }},
		"no outputs":          {"SiteDir", func(o *Options) { o.SiteDir = "" }},
		"no state":            {"StateDir", func(o *Options) { o.StateDir = "" }},
		"two keys":            {"ServerKey", func(o *Options) { o.Passphrase = []byte("x") }},
		"no key":              {"ServerKey", func(o *Options) { o.ServerKey = nil }},
		"bad site url":        {"SiteURL", func(o *Options) { o.SiteURL = "example.org" }},
		"tiny block":          {"MaxBlockBytes", func(o *Options) { o.MaxBlockBytes = 10 }},
		"tiny budget":         {"PageBudget", func(o *Options) { o.PageBudget = 100 }},
		"zero redundancy":     {"Redundancy", func(o *Options) { o.Redundancy = 0 }},
		"keep too many":       {"KeepPrevious", func(o *Options) { o.KeepPrevious = 17 }},
		"negative timeout":    {"DumpTimeout", func(o *Options) { o.DumpTimeout = -1 }},
		"reserved segment":    {"Includes.Segment", func(o *Options) { o.Includes[0].Segment = "_x" }},
		"recover's report":    {"Includes.Segment", func(o *Options) { o.Includes[0].Segment = "recovery.json" }},
		"file named so":       {"Includes.Segment", func(o *Options) { o.Includes = []Include{{Path: "/srv/app/recovery.json"}} }},
		"dump named so":       {"Dumps.Name", func(o *Options) { o.Dumps = []Dump{{Name: "recovery.json", Command: "true"}} }},
		"same segment twice":  {"Includes.Segment", func(o *Options) { o.Includes = append(o.Includes, Include{Path: "/etc/app"}) }},
		"dump clash":          {"Dumps.Name", func(o *Options) { o.Dumps = []Dump{{Name: "app", Command: "true"}} }},
		"empty dump":          {"Dumps.Command", func(o *Options) { o.Dumps = []Dump{{Name: "db"}} }},
		"snippets no pages":   {"SnippetsDir", func(o *Options) { o.SiteDir = ""; o.SnippetsDir = "x" }},
		"bundle no pages":     {"BundleDir", func(o *Options) { o.SiteDir = ""; o.BundleDir = "x" }},
		"carriers with pages": {"Carriers", func(o *Options) { o.BundleDir = "x"; o.Carriers = 3 }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := f.options()
			c.mutate(&o)
			err := o.Validate()
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, want an *OptionError", err)
			}
			if oe.Field != c.field {
				t.Errorf("field %q (%v), want %q", oe.Field, oe, c.field)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("message %q names a flag", err)
			}
		})
	}
}

// TestValidateListsEveryProblem: all problems come back at once, each an
// *OptionError the caller can reach through OptionsError.Unwrap.
func TestValidateListsEveryProblem(t *testing.T) {
	err := Options{Redundancy: 0}.Validate()
	var oes *OptionsError
	if !errors.As(err, &oes) {
		t.Fatalf("got %T %v", err, err)
	}
	fields := map[string]bool{}
	for _, p := range oes.Unwrap() {
		var oe *OptionError
		if !errors.As(p, &oe) {
			t.Fatalf("problem %v is not an *OptionError", p)
		}
		fields[oe.Field] = true
	}
	for _, want := range []string{"Includes", "SiteDir", "StateDir", "ServerKey", "SiteURL", "Redundancy"} {
		if !fields[want] {
			t.Errorf("no problem about %s in %v", want, err)
		}
	}
}

// TestDefaultsFilledOnce: the zero value of each option with a default
// means that default, exactly as DefaultOptions has it.
func TestDefaultsFilledOnce(t *testing.T) {
	d := DefaultOptions()
	var o Options
	o.fillDefaults()
	if o.MaxBlockBytes != d.MaxBlockBytes || o.PageBudget != d.PageBudget || o.MaxPageBytes != d.MaxPageBytes || o.DumpTimeout != d.DumpTimeout || o.Now == nil {
		t.Errorf("zero options filled as %+v, defaults are %+v", o, d)
	}
	if d.Redundancy != DefaultRedundancy || d.KeepPrevious != DefaultKeepPrevious {
		t.Errorf("defaults %+v", d)
	}
}
