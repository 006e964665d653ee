package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/lazarus-preserve/lazarus/injector"
)

// listFlag is a repeatable flag. Values from the config file are replaced
// by the first value given on the command line: a list flag replaces the
// file's list (documented in injectUsage and the README).
type listFlag struct {
	vals    []string
	fromCLI bool
}

func (l *listFlag) String() string { return strings.Join(l.vals, ",") }

func (l *listFlag) Set(v string) error {
	if !l.fromCLI {
		l.vals, l.fromCLI = nil, true
	}
	l.vals = append(l.vals, v)
	return nil
}

// injectCmd holds inject's settings: injector.DefaultOptions, then the
// config file, then the flags, each overriding the one before.
type injectCmd struct {
	opts                             injector.Options
	cfg                              injectConfig // the settings that name files, read after parsing
	include, exclude, dump, volatile listFlag
	jsonOut                          bool
	// redundancyWord is the last --redundancy given on the command line,
	// target the --target (0 if none): a ratio and a target do not
	// combine, and auto or max after a ratio plan for the target given.
	redundancyWord string
	target         float64
	// requestsNote says why the plan counts on no capture requests
	// although the config has a [capture] table (plannedRequests).
	requestsNote string
	stderr       io.Writer
}

const injectUsage = `Usage: lazarus inject [--config FILE] [flags]

Packs, encrypts and erasure-codes the server side and embeds it in the site's pages.
Each --include and --dump is a segment; lazarus recover --out OUT restores segment NAME as OUT/NAME.
Outputs: --site DIR rewrites the site's .html pages in place, also when --bundle or --snippets
is given (to leave the pages alone, list them with --urls FILE instead of --site).

Settings come from the defaults, then --config FILE (the flags' names in snake_case; the
source's docs/recipes/lazarus.toml shows every one), then the flags: a flag overrides the
file, and a list flag (--include, --exclude, --dump, --volatile) replaces the file's whole list.
--dry-run, --accept-shrink, --json and --config are given on the command line only.

A segment found empty, or shrunk to under a tenth of its size (by 64 KiB or more), is preserved
with a warning, and the generation before it stays on the pages until the segment is back or a
run with --accept-shrink says the data was deleted on purpose.

Exit codes: 0 done (new generation or unchanged), 1 error (nothing changed), 2 usage error,
130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM (nothing changed).
A signal after the new state is saved lets the run finish the pages (exit 0, with a warning);
a second one stops it between two pages, leaving no temporary file: exit 130 or 143, and the
next run completes the pages.

Examples:
  # a static site, before publishing it
  lazarus inject --site public/ --site-url https://example.org/ --key /etc/lazarus/server.key \
      --include /srv/app --include /etc/app=config --dump 'db=mysqldump --single-transaction app' \
      --state /var/lib/lazarus/example

  # the same settings from a file (flags override it); show the plan, write nothing
  lazarus inject --config /etc/lazarus/lazarus.toml --dry-run

  # the file's settings, but preserve only /srv/app (replaces the file's include list)
  lazarus inject --config /etc/lazarus/lazarus.toml --include /srv/app

  # generations for the Caddy module, planned for the pages listed in urls.txt
  lazarus inject --bundle /var/lib/lazarus/bundle --urls urls.txt --site-url https://example.org/ \
      --key server.key --include /srv/app

Flags:
`

// testHookInject, if set, sees the options of a run just before it
// starts (tests use it to pause the write phase).
var testHookInject func(*injector.Options)

func runInject(args []string, stdout, stderr io.Writer) int {
	c := &injectCmd{stderr: stderr}
	if code, ok := c.parse(args, stdout, stderr); !ok {
		return code
	}
	opts, err := c.options()
	if err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	if err := c.fromArchiveState(&opts); err != nil { // the state's, not the user's: nothing changed
		errorf(stderr, "%v", err)
		archiveStateHint(stderr, err)
		return exitError
	}
	sig := notifyInterrupt()
	defer sig.stop()
	status := newInjectStatus(stderr)
	opts.Progress, opts.Abort = status.report, sig.again.Done()
	if testHookInject != nil {
		testHookInject(&opts)
	}
	stopWatch := status.watch(sig)
	started := opts.Now()
	res, err := injector.Run(sig.ctx, opts)
	stopWatch()
	if err != nil {
		return injectFailed(stderr, err, opts, sig)
	}
	if sig.stopped() && !opts.DryRun {
		fmt.Fprintf(stderr, "lazarus: warning: %v after the new state was saved: the run finished writing the pages instead of stopping, and succeeded\n", context.Cause(sig.ctx))
	}
	printInjectWarnings(stderr, res)
	if res.UnknownGeneration != "" {
		hintf(stderr, "keep the same --state DIR from one run to the next, outside the checkout (such as /var/lib/lazarus/SITE): docs/DEPLOY.md")
	}
	if len(res.Shrunk) > 0 {
		hintf(stderr, "if the segment lost its data on purpose, run again with --accept-shrink; otherwise fix the include or the dump")
	}
	rec := publishGeneration(res, opts, started, stderr)
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(injectJSON{Report: res, ArchiveState: injectArchiveState(res, rec), RequestsNote: c.requestsNote})
		return exitOK
	}
	printInject(stdout, res, opts.StateDir)
	if c.requestsNote != "" {
		fmt.Fprintf(stdout, "  %s\n", c.requestsNote)
	}
	printInjectArchiveState(stdout, res, rec)
	return exitOK
}

// parse starts from the injector's defaults, applies the config file named
// by --config (if any), then the flags, which override it.
func (c *injectCmd) parse(args []string, stdout, stderr io.Writer) (int, bool) {
	c.opts = injector.DefaultOptions()
	if path := configArg(args); path != "" {
		cfg, err := loadInjectConfig(path)
		if err == nil {
			if err = cfg.apply(&c.opts); err != nil {
				err = fmt.Errorf("config %s: %w", path, err)
			}
		}
		if err != nil {
			errorf(stderr, "%v", err)
			return exitUsage, false
		}
		c.cfg = *cfg
	}
	return parseFlags(c.flags(), args, stdout, stderr)
}

// configArg finds --config's value before the flags are parsed.
func configArg(args []string) string {
	for i, a := range args {
		for _, p := range []string{"-config", "--config"} {
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
		}
	}
	return ""
}

// flags binds the flags to the options; each flag's default is the value
// so far (the injector's default, or the config file's).
func (c *injectCmd) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("lazarus inject", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), injectUsage)
		fs.PrintDefaults()
	}
	o, cfg := &c.opts, &c.cfg
	c.include.vals, c.exclude.vals, c.dump.vals, c.volatile.vals = cfg.Include, cfg.Exclude, cfg.dumps(), cfg.volatiles()
	fs.String("config", "", "TOML `FILE` with the same settings (flags override it; a list flag replaces its list)")
	fs.Var(&c.include, "include", "`PATH[=NAME]` to preserve, a directory or file, restored as NAME (default: its base name; repeatable)")
	fs.Var(&c.exclude, "exclude", "gitignore-style `GLOB` to leave out (repeatable)")
	fs.Var(&c.dump, "dump", "`NAME=COMMAND` whose output is preserved as file NAME (repeatable)")
	fs.Var(&c.volatile, "volatile", "`NAME=REGEXP`: lines of dump NAME's output matching REGEXP (Go syntax) are left out when comparing it with the last one, so a dump that changed only there makes no new generation (repeatable; the output is preserved byte for byte)")
	fs.DurationVar(&o.DumpTimeout, "dump-timeout", o.DumpTimeout, "time limit per dump command")
	fs.BoolVar(&o.AllOrNothing, "all-or-nothing", o.AllOrNothing, "pack everything into one segment")
	fs.StringVar(&cfg.Key, "key", cfg.Key, "server.key `FILE` (encrypts to the owner, signs)")
	fs.StringVar(&cfg.PassphraseFile, "passphrase-file", cfg.PassphraseFile, "`FILE` holding the passphrase (instead of --key)")
	fs.BoolVar(&o.Public, "public", o.Public, "store UNENCRYPTED (signed if --key is given)")
	fs.StringVar(&o.SiteURL, "site-url", o.SiteURL, "public `URL` of the site, recorded in the manifest")
	fs.Var(sizeFlag{&o.MaxBlockBytes}, "max-block-bytes", "the most data bytes each block carries, a `SIZE` such as 48KiB (on the page, base64 makes its comment a third larger); 0 chooses: as large as fits --page-budget when planning by --target, else 48KiB")
	fs.Var(sizeFlag{&o.PageBudget}, "page-budget", "most bytes (`SIZE`) added to any one page")
	fs.Var(sizeFlag{&o.MaxPageBytes}, "max-page-bytes", "pages with blocks stay below this `SIZE` (Common Crawl cuts records at 5MiB, 1MiB before February 2025: above 5MiB, a warning)")
	fs.Var(redundancyFlag{o, &c.redundancyWord}, "redundancy", "`auto` (the fewest bytes that reach --target), max (that, then parity until every stripe spans every page, and copies on pages without a block, within --page-budget) or a RATIO of parity to data blocks")
	fs.Var(targetFlag{o, &c.target}, "target", "recoverability `P` to plan for (--redundancy auto or max), e.g. 0.999 or 99.9%: the chance the archives keep enough blocks if each page is kept with probability 0.5 (or as --status estimates); with a [capture] table whose requests can be counted on, the chance within a day that the requested pages hold enough, 0.99 by default (docs/INJECT.md)")
	fs.StringVar(&cfg.Status, "status", cfg.Status, "`FILE` saved from lazarus status --json: plan on the pages the archives capture (their estimated capture probabilities), and keep earlier generations on the pages until the archives hold a newer one")
	fs.Var(daysFlag{&o.KeepMaxAge}, "keep-max-age", "drop earlier generations older than this `DURATION` (90d, 2160h) from the pages, whatever --status says (default: no limit)")
	fs.IntVar(&o.KeepPrevious, "keep-previous", o.KeepPrevious, "previous generations kept beside the new one while the budget allows")
	fs.StringVar(&o.SiteDir, "site", o.SiteDir, "static site `DIR` whose .html pages are rewritten in place (with --bundle or --snippets too)")
	fs.StringVar(&o.BundleDir, "bundle", o.BundleDir, "`DIR` to write generations into for the Caddy module (needs --site or --urls)")
	fs.StringVar(&o.SnippetsDir, "snippets", o.SnippetsDir, "`DIR` to write one include file per page into (needs --site or --urls)")
	fs.StringVar(&cfg.URLs, "urls", cfg.URLs, "`FILE` of page paths (one per line) for --bundle or --snippets without --site")
	fs.StringVar(&cfg.State, "state", cfg.State, "state `DIR` (default: $XDG_STATE_HOME/lazarus/HASH, $XDG_STATE_HOME defaulting to ~/.local/state)")
	fs.StringVar(&o.Notice, "notice", o.Notice, "visible line kept in a data-lazarus-notice element, e.g. 'Updated {date}'")
	fs.BoolVar(&o.Sitemap, "sitemap", o.Sitemap, "keep a sitemap.xml of the site's pages and name it in robots.txt (created if missing), so crawlers that start from sitemaps (Common Crawl) find new pages; left alone when the site has a sitemap of its own")
	fs.BoolVar(&o.AcceptShrink, "accept-shrink", false, "segments found empty or shrunk to under a tenth lost their data on purpose: no warning, and the generation before is not held on the pages; command line only")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the plan without writing anything (not even the state directory); command line only")
	fs.BoolVar(&c.jsonOut, "json", false, "print the result as JSON; command line only")
	return fs
}
