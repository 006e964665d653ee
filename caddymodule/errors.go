package caddymodule

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lazarus-preserve/lazarus/injector"
)

// optionNames are the Caddyfile options that set the injector.Options
// fields an OptionError names; the fields the module sets itself (the
// state and bundle directories) are absent.
var optionNames = map[string]string{
	"Includes":         "source or dump",
	"Includes.Segment": "source",
	"Dumps.Name":       "dump",
	"Dumps.Command":    "dump",
	"ServerKey":        "key or passphrase_file",
	"MaxBlockBytes":    "max_block_bytes",
	"PageBudget":       "page_budget",
	"Redundancy":       "redundancy",
	"DumpTimeout":      "dump_timeout",
	"SiteURL":          "site_url",
	"Carriers":         "carriers",
}

// optionWordsError is an injector error restated in the Caddyfile's
// words. It unwraps to the injector's error, so errors.Is and errors.As
// still find its sentinels and types.
type optionWordsError struct {
	msg string
	err error
}

func (e *optionWordsError) Error() string { return e.msg }
func (e *optionWordsError) Unwrap() error { return e.err }

// inOptionWords restates an error of the injector, which states facts
// without naming flags or options (injector/errors.go), in the module's
// vocabulary: each problem with the options starts with the Caddyfile
// option at fault, and a backup the planned pages cannot take gets a hint
// naming the options that help. Other errors are returned as they are.
func inOptionWords(err error) error {
	var opts *injector.OptionsError
	var budget *injector.BudgetError
	switch {
	case errors.As(err, &opts):
		msg := strings.Replace(err.Error(), opts.Error(), problemsInOptionWords(opts), 1)
		return &optionWordsError{msg, err}
	case errors.As(err, &budget):
		return &optionWordsError{err.Error() + "; in the Caddyfile: " + budgetHint(budget), err}
	case errors.Is(err, injector.ErrTooFewPages):
		return &optionWordsError{err.Error() + "; in the Caddyfile: raise carriers (the pages the code is planned for) or lower redundancy", err}
	}
	return err
}

// problemsInOptionWords joins the problems, each after its option's name.
func problemsInOptionWords(opts *injector.OptionsError) string {
	msgs := make([]string, len(opts.Problems))
	for i, p := range opts.Problems {
		msgs[i] = p.Error()
		var oe *injector.OptionError
		if errors.As(p, &oe) {
			if name, ok := optionNames[oe.Field]; ok {
				msgs[i] = name + ": " + oe.Msg
			}
		}
	}
	return strings.Join(msgs, "; ")
}

// budgetHint names the options that may make the backup fit, from the
// fields of the injector's BudgetError: the changes its message lists in
// neutral words.
func budgetHint(e *injector.BudgetError) string {
	if e.Segment == "" {
		return "raise page_budget (the root page carries the manifest)"
	}
	var fixes []string
	if z := e.SuggestedMaxBlockBytes; z > 0 {
		fixes = append(fixes, "set max_block_bytes "+caddySize(z))
	}
	if e.Fixed || e.NeedBytes > e.RoomBytes {
		fixes = append(fixes, "raise page_budget")
	}
	fixes = append(fixes, "raise carriers")
	if e.Fixed {
		return strings.Join(fixes, " or ")
	}
	switch {
	case e.Target:
		fixes = append(fixes, "lower target")
	case e.SuggestedMaxBlockBytes == 0:
		fixes = append(fixes, "lower redundancy")
	}
	fixes = append(fixes, fmt.Sprintf("exclude files from segment %q", e.Segment))
	return strings.Join(fixes[:len(fixes)-1], ", ") + " or " + fixes[len(fixes)-1]
}

// caddySize writes a byte count as a Caddyfile size: 64KiB, 1MiB or bytes.
func caddySize(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprint(n)
}
