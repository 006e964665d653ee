package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/lazarus-preserve/lazarus/injector"
)

// injectFailed prints why a run failed, with hints in the CLI's words
// (the injector's errors state facts and name no flags), and returns the
// exit code.
func injectFailed(w io.Writer, err error, o injector.Options, sig *interrupt) int {
	var oe *injector.OptionsError
	switch {
	case errors.Is(err, injector.ErrWriteInterrupted):
		errorf(w, "interrupted again (%v): %v", context.Cause(sig.again), err)
		hintf(w, "run the same command again to complete the pages")
		return sig.code()
	case sig.stopped() && errors.Is(err, context.Canceled):
		errorf(w, "interrupted (%v); nothing was changed", context.Cause(sig.ctx))
		return sig.code()
	case errors.As(err, &oe):
		for _, p := range oe.Problems {
			errorf(w, "%v", p)
		}
		for _, h := range optionHints(oe.Problems) {
			hintf(w, "%s", h)
		}
		hintf(w, "run 'lazarus inject -h' for the flags")
		return exitUsage
	}
	errorf(w, "%v", err)
	if h := runHint(err, o); h != "" {
		hintf(w, "%s", h)
	}
	return exitError
}

// fieldHints words, per injector.Options field, what to give on the
// command line (or in the config file, whose keys are the flag names in
// snake_case).
var fieldHints = map[string]string{
	"Includes":         "give what to preserve: --include PATH[=NAME] or --dump NAME=COMMAND (repeatable)",
	"Includes.Segment": "give each --include a name of its own: --include PATH=NAME (letters, digits, '_', '.', '-'; not starting with '_', not recovery.json)",
	"Dumps.Name":       "give each --dump a name of its own, different from the includes' names: --dump NAME=COMMAND",
	"Dumps.Command":    "give the command after the name: --dump NAME=COMMAND",
	"Dumps.Volatile":   "give --volatile NAME=REGEXP a regular expression in Go's syntax (docs/INJECT.md, \"Dumps that change without changing\")",
	"SiteDir":          "say where to write: --site DIR, --bundle DIR or --snippets DIR",
	"BundleDir":        "bundle mode needs --site DIR or --urls FILE (one page path per line): the pages the blocks are planned for",
	"SnippetsDir":      "--snippets needs --site DIR or --urls FILE (one page path per line)",
	"StateDir":         "give --state DIR",
	"ServerKey":        "give exactly one of --key FILE, --passphrase-file FILE or --public",
	"SiteURL":          "give --site-url with the site's public address, such as https://example.org/",
	"MaxBlockBytes":    "give --max-block-bytes between 1KiB and 16MiB",
	"PageBudget":       "give --page-budget of 4KiB or more",
	"Redundancy":       "give --redundancy auto, max, or a ratio above 0 and at most 255",
	"Target":           "give --target a probability between 0 and 1, such as 0.999 or 99.9%",
	"KeepMaxAge":       "give --keep-max-age a duration of 0 or more, such as 2160h",
	"KeepPrevious":     "give --keep-previous between 0 and 16",
	"DumpTimeout":      "give --dump-timeout as a positive duration such as 10m",
}

// optionHints returns the hints for the problems, each once, in order.
func optionHints(problems []error) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range problems {
		var oe *injector.OptionError
		if !errors.As(p, &oe) {
			continue
		}
		if h := fieldHints[oe.Field]; h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// runHint says what to try after a run failed, or "".
func runHint(err error, o injector.Options) string {
	var be *injector.BudgetError
	var pe *injector.SitePathError
	switch {
	case errors.As(err, &pe):
		return fmt.Sprintf("give --site-url the address the site's root page is served at: its pages are linked at paths such as %s, outside %s (now --site-url %s); nothing was changed",
			pe.Example, pe.Path, o.SiteURL)
	case errors.Is(err, injector.ErrLocked):
		return "wait for the other run to finish; nothing was changed"
	case errors.Is(err, injector.ErrDump):
		return dumpHint(err, o)
	case errors.As(err, &be):
		return budgetHint(be, o)
	case errors.Is(err, injector.ErrTooFewPages):
		return fmt.Sprintf("link more pages from the root page, or %s; nothing was changed", lowerParity(o))
	}
	return ""
}

// dumpHint says what to do about a failed dump: a command the shell did
// not find is most often a PATH problem (cron's is /usr/bin:/bin), a
// timeout wants more time, anything else a look at the command.
func dumpHint(err error, o injector.Options) string {
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 127:
		return "the shell did not find a command of the dump (exit 127); if it runs by hand, PATH is the difference: " +
			"cron and systemd do not use your login shell's PATH (cron's is /usr/bin:/bin), so " +
			"set PATH in the crontab or the unit, or give the command by its absolute path (see docs/DEPLOY.md); nothing was changed"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("give the dump longer than --dump-timeout %v, or make it faster; nothing was changed", o.DumpTimeout)
	}
	return "fix the dump command (run it by hand, as the same user, to see); nothing was changed"
}

// budgetHint turns a BudgetError's numbers into flags to change.
func budgetHint(be *injector.BudgetError, o injector.Options) string {
	budget := fmt.Sprintf("raise --page-budget (now %s)", flagSize(o.PageBudget))
	if be.Segment == "" {
		return budget + " or make the root page smaller; nothing was changed"
	}
	if be.Fixed {
		return fmt.Sprintf("%s or link more pages from the root page; segment %q keeps the coding of an earlier generation until its content changes; nothing was changed", budget, be.Segment)
	}
	var fixes []string
	if z := be.SuggestedMaxBlockBytes; z > 0 {
		fixes = append(fixes, "use --max-block-bytes "+flagSize(z))
	}
	if be.NeedBytes > be.RoomBytes {
		fixes = append(fixes, budget)
	}
	fixes = append(fixes, "link more pages from the root page")
	if be.SuggestedMaxBlockBytes == 0 {
		fixes = append(fixes, lowerParity(o))
	}
	fixes = append(fixes, fmt.Sprintf("leave files out of segment %q with --exclude", be.Segment))
	return "nothing was changed; to fit, " + strings.Join(fixes[:len(fixes)-1], ", ") + " or " + fixes[len(fixes)-1]
}

// lowerParity says which flag asks for less parity: --target when the
// plan aims at one, else --redundancy.
func lowerParity(o injector.Options) string {
	if o.Target > 0 {
		return fmt.Sprintf("lower --target (now %g)", o.Target)
	}
	return fmt.Sprintf("lower --redundancy (now %s)", o.RedundancyName())
}
