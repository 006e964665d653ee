package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/injector"
)

// TestOptionHints: every problem the injector reports about an option a
// flag sets gets a hint naming that flag; the injector's own message
// names none.
func TestOptionHints(t *testing.T) {
	base := func() injector.Options {
		o := injector.DefaultOptions()
		o.Includes = []injector.Include{{Path: "/srv/app"}}
		o.ServerKey, o.SiteURL, o.SiteDir, o.StateDir = []byte("k"), "https://example.org/", "site", "state"
		return o
	}
	cases := map[string]struct {
		mutate func(o *injector.Options)
		flag   string
	}{
		"nothing to preserve": {func(o *injector.Options) { o.Includes = nil }, "--include"},
		"nowhere to write":    {func(o *injector.Options) { o.SiteDir = "" }, "--bundle"},
		"bundle alone":        {func(o *injector.Options) { o.SiteDir, o.BundleDir = "", "b" }, "bundle mode needs --site DIR or --urls FILE"},
		"snippets alone":      {func(o *injector.Options) { o.SiteDir, o.SnippetsDir = "", "s" }, "--snippets needs --site DIR or --urls FILE"},
		"no key":              {func(o *injector.Options) { o.ServerKey = nil }, "--passphrase-file"},
		"bad site url":        {func(o *injector.Options) { o.SiteURL = "" }, "--site-url"},
		"tiny block":          {func(o *injector.Options) { o.MaxBlockBytes = 10 }, "--max-block-bytes"},
		"tiny budget":         {func(o *injector.Options) { o.PageBudget = 10 }, "--page-budget"},
		"no redundancy":       {func(o *injector.Options) { o.Redundancy = -1 }, "--redundancy"},
		"keep too many":       {func(o *injector.Options) { o.KeepPrevious = 99 }, "--keep-previous"},
		"negative timeout":    {func(o *injector.Options) { o.DumpTimeout = -1 }, "--dump-timeout"},
		"name clash":          {func(o *injector.Options) { o.Includes = append(o.Includes, injector.Include{Path: "/etc/app"}) }, "--include PATH=NAME"},
		"dump name clash":     {func(o *injector.Options) { o.Dumps = []injector.Dump{{Name: "app", Command: "true"}} }, "--dump NAME=COMMAND"},
		"empty dump":          {func(o *injector.Options) { o.Dumps = []injector.Dump{{Name: "db"}} }, "--dump NAME=COMMAND"},
	}
	for name, c := range cases {
		o := base()
		c.mutate(&o)
		err := o.Validate()
		var oe *injector.OptionsError
		if !errors.As(err, &oe) {
			t.Errorf("%s: got %v", name, err)
			continue
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%s: the injector's message %q names a flag", name, err)
		}
		hints := strings.Join(optionHints(oe.Problems), "\n")
		if !strings.Contains(hints, c.flag) {
			t.Errorf("%s: hints %q lack %q", name, hints, c.flag)
		}
	}
}

// TestBudgetHint: the numbers of a BudgetError become flags to change.
func TestBudgetHint(t *testing.T) {
	o := injector.DefaultOptions()
	o.PageBudget = 17 << 10
	cases := []struct {
		be   injector.BudgetError
		want []string
		not  []string
	}{
		// Larger blocks fit, the room in bytes suffices.
		{injector.BudgetError{Segment: "app", SuggestedMaxBlockBytes: 64 << 10, NeedBytes: 1, RoomBytes: 2},
			[]string{"use --max-block-bytes 64KiB", `segment "app" with --exclude`}, []string{"--page-budget", "--redundancy"}},
		// Nothing fits: budget and the target (the default plan).
		{injector.BudgetError{Segment: "app", NeedBytes: 3, RoomBytes: 2},
			[]string{"raise --page-budget (now 17KiB)", "lower --target (now 0.999)"}, []string{"--max-block-bytes", "--redundancy"}},
		// The manifest does not fit on the root page.
		{injector.BudgetError{}, []string{"raise --page-budget (now 17KiB) or make the root page smaller"}, nil},
	}
	fixed := o // a fixed parity ratio: lower it
	if err := fixed.SetRedundancy("1.5"); err != nil {
		t.Fatal(err)
	}
	if h := budgetHint(&injector.BudgetError{Segment: "app", NeedBytes: 3, RoomBytes: 2}, fixed); !strings.Contains(h, "lower --redundancy (now 1.5)") {
		t.Errorf("with --redundancy 1.5: hint %q", h)
	}
	for i, c := range cases {
		h := budgetHint(&c.be, o)
		for _, w := range c.want {
			if !strings.Contains(h, w) {
				t.Errorf("case %d: hint %q lacks %q", i, h, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(h, n) {
				t.Errorf("case %d: hint %q names %q", i, h, n)
			}
		}
	}
}
