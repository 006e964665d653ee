package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// listFlag is a repeatable flag. Values from the config file are replaced
// by the first value given on the command line.
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

// injectCmd holds inject's settings: config file values, then flags.
type injectCmd struct {
	cfg                           injectConfig
	include, exclude, dump        listFlag
	dumpTimeout                   time.Duration
	redundancy                    float64
	keepPrevious                  int
	maxBlock, pageBudget, maxPage int
	jsonOut, dryRun               bool
	stderr                        io.Writer
}

func runInject(args []string, stdout, stderr io.Writer) int {
	c := &injectCmd{stderr: stderr}
	if code, ok := c.parse(args, stderr); !ok {
		return code
	}
	opts, err := c.options()
	if err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts.Log = func(msg string) { fmt.Fprintln(stderr, "lazarus: "+msg) }
	res, err := injector.Run(ctx, opts)
	var oe *injector.OptionsError
	if errors.As(err, &oe) {
		for _, p := range oe.Problems {
			errorf(stderr, "%v", p)
		}
		hintf(stderr, "run 'lazarus inject -h' for the flags")
		return exitUsage
	}
	if err != nil {
		errorf(stderr, "%v", err)
		injectHint(stderr, err)
		return exitError
	}
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
		return exitOK
	}
	printInject(stdout, res, opts.StateDir)
	return exitOK
}

func injectHint(w io.Writer, err error) {
	var be *placement.BudgetError
	switch {
	case errors.Is(err, injector.ErrLocked):
		hintf(w, "wait for the other run to finish; nothing was changed")
	case errors.Is(err, injector.ErrDump):
		hintf(w, "fix the dump command (run it by hand to see); nothing was changed")
	case errors.As(err, &be):
		hintf(w, "nothing was changed; see 'lazarus inject -h' for --max-block-bytes, --page-budget and --exclude")
	}
}

// parse reads the config file named by --config (if any) and then the flags,
// which override it.
func (c *injectCmd) parse(args []string, stderr io.Writer) (int, bool) {
	if path := configArg(args); path != "" {
		cfg, err := loadInjectConfig(path)
		if err != nil {
			errorf(stderr, "%v", err)
			return exitUsage, false
		}
		c.cfg = *cfg
	}
	fs := c.flags()
	return parseFlags(fs, args, stderr)
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

func (c *injectCmd) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("lazarus inject", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus inject [--config FILE] [flags]\n\n"+
			"Packs, encrypts and erasure-codes the server side and embeds it in the site's pages.\n"+
			"Exit codes: 0 done (new generation or unchanged), 1 error (nothing changed), 2 usage error.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	cfg := &c.cfg
	d := injector.DefaultOptions()
	c.include.vals, c.exclude.vals, c.dump.vals = cfg.Include, cfg.Exclude, cfg.dumps()
	fs.String("config", "", "TOML file with the same settings (flags override it)")
	fs.Var(&c.include, "include", "`PATH[=SEGMENT]` to preserve, a directory or file (repeatable)")
	fs.Var(&c.exclude, "exclude", "gitignore-style `GLOB` to leave out (repeatable)")
	fs.Var(&c.dump, "dump", "`NAME=COMMAND` whose output is preserved as file NAME (repeatable)")
	dt, _ := cfg.dumpTimeout()
	fs.DurationVar(&c.dumpTimeout, "dump-timeout", orDuration(dt, d.DumpTimeout), "time limit per dump command")
	fs.BoolVar(&cfg.AllOrNothing, "all-or-nothing", cfg.AllOrNothing, "pack everything into one segment")
	fs.StringVar(&cfg.Key, "key", cfg.Key, "server.key `FILE` (encrypts to the owner, signs)")
	fs.StringVar(&cfg.PassphraseFile, "passphrase-file", cfg.PassphraseFile, "`FILE` holding the passphrase (instead of --key)")
	fs.BoolVar(&cfg.Public, "public", cfg.Public, "store UNENCRYPTED (signed if --key is given)")
	fs.StringVar(&cfg.SiteURL, "site-url", cfg.SiteURL, "public `URL` of the site, recorded in the manifest")
	c.maxBlock, c.pageBudget, c.maxPage = orInt(cfg.MaxBlockBytes, d.MaxBlockBytes), orInt(cfg.PageBudget, d.PageBudget), orInt(cfg.MaxPageBytes, d.MaxPageBytes)
	fs.Var(sizeFlag{&c.maxBlock}, "max-block-bytes", "`SIZE` of the shard in each block, z (e.g. 48KiB)")
	fs.Var(sizeFlag{&c.pageBudget}, "page-budget", "most bytes (`SIZE`) added to any one page")
	fs.Var(sizeFlag{&c.maxPage}, "max-page-bytes", "pages with blocks stay below this `SIZE`")
	fs.Float64Var(&c.redundancy, "redundancy", orFloat(cfg.Redundancy, d.Redundancy), "parity blocks per data block")
	fs.IntVar(&c.keepPrevious, "keep-previous", orIntPtr(cfg.KeepPrevious, d.KeepPrevious), "previous generations kept beside the new one while the budget allows")
	fs.StringVar(&cfg.Site, "site", cfg.Site, "static site `DIR` whose .html pages are rewritten in place")
	fs.StringVar(&cfg.Bundle, "bundle", cfg.Bundle, "`DIR` to write generations into for the Caddy module")
	fs.StringVar(&cfg.Snippets, "snippets", cfg.Snippets, "`DIR` to write one include file per page into")
	fs.StringVar(&cfg.URLs, "urls", cfg.URLs, "`FILE` of page paths (one per line) for --snippets without --site")
	fs.StringVar(&cfg.State, "state", cfg.State, "state `DIR` (default: under $XDG_STATE_HOME/lazarus)")
	fs.StringVar(&cfg.Notice, "notice", cfg.Notice, "visible line kept in a data-lazarus-notice element, e.g. 'Updated {date}'")
	fs.BoolVar(&c.dryRun, "dry-run", false, "print the plan without writing anything")
	fs.BoolVar(&c.jsonOut, "json", false, "print the result as JSON")
	return fs
}

// options turns the settings into injector options.
func (c *injectCmd) options() (injector.Options, error) {
	cfg := &c.cfg
	o := injector.DefaultOptions()
	o.Excludes, o.AllOrNothing, o.Public, o.SiteURL = c.exclude.vals, cfg.AllOrNothing, cfg.Public, cfg.SiteURL
	o.DumpTimeout, o.Redundancy, o.KeepPrevious = c.dumpTimeout, c.redundancy, c.keepPrevious
	o.MaxBlockBytes, o.PageBudget, o.MaxPageBytes = c.maxBlock, c.pageBudget, c.maxPage
	o.SiteDir, o.BundleDir, o.SnippetsDir, o.Notice, o.DryRun = cfg.Site, cfg.Bundle, cfg.Snippets, cfg.Notice, c.dryRun
	for _, inc := range c.include.vals {
		path, seg, _ := strings.Cut(inc, "=")
		o.Includes = append(o.Includes, injector.Include{Path: path, Segment: seg})
	}
	for _, d := range c.dump.vals {
		name, cmd, ok := strings.Cut(d, "=")
		if !ok || name == "" {
			return o, fmt.Errorf("--dump %q: want NAME=COMMAND", d)
		}
		o.Dumps = append(o.Dumps, injector.Dump{Name: name, Command: cmd})
	}
	if err := c.loadSecrets(&o); err != nil {
		return o, err
	}
	if cfg.URLs != "" {
		urls, err := readURLList(cfg.URLs)
		if err != nil {
			return o, err
		}
		o.URLs = urls
	}
	if now, ok, err := sourceDateEpoch(); err != nil {
		return o, err
	} else if ok {
		o.Now = func() time.Time { return now }
	}
	o.StateDir = cfg.State
	if o.StateDir == "" {
		o.StateDir = defaultStateDir(o)
	}
	return o, nil
}

func (c *injectCmd) loadSecrets(o *injector.Options) error {
	if c.cfg.Key != "" {
		raw, err := os.ReadFile(c.cfg.Key)
		if err != nil {
			return fmt.Errorf("--key: %w", err)
		}
		o.ServerKey = raw
	}
	if c.cfg.PassphraseFile != "" {
		pass, err := readPassphrase(c.cfg.PassphraseFile, c.stderr)
		if err != nil {
			return err
		}
		o.Passphrase = pass
	}
	return nil
}

// readURLList reads one page path per line; blank lines and # comments
// are ignored.
func readURLList(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--urls: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "/") {
			return nil, fmt.Errorf("--urls %s: %q is not a path starting with /", path, line)
		}
		out = append(out, line)
	}
	return out, nil
}

// defaultStateDir is $XDG_STATE_HOME/lazarus/<hash of the outputs and
// site URL>, so each site has its own state outside the served tree.
func defaultStateDir(o injector.Options) string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".local", "state")
	}
	h := sha256.New()
	for _, p := range []string{o.SiteDir, o.BundleDir, o.SnippetsDir} {
		abs, _ := filepath.Abs(p)
		if p == "" {
			abs = ""
		}
		fmt.Fprintf(h, "%s\x00", abs)
	}
	fmt.Fprintf(h, "%s", o.SiteURL)
	return filepath.Join(base, "lazarus", hex.EncodeToString(h.Sum(nil))[:16])
}

func orInt(s tomlSize, d int) int {
	if s.set {
		return s.n
	}
	return d
}

func orIntPtr(p *int, d int) int {
	if p != nil {
		return *p
	}
	return d
}

func orFloat(p *float64, d float64) float64 {
	if p != nil {
		return *p
	}
	return d
}

func orDuration(v, d time.Duration) time.Duration {
	if v != 0 {
		return v
	}
	return d
}

// sourceDateEpoch honours SOURCE_DATE_EPOCH (reproducible-builds.org): a
// fixed "now" for generation times, page mtimes, sitemap lastmod and the
// notice, for reproducible runs and tests.
func sourceDateEpoch() (time.Time, bool, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a Unix time", v)
	}
	return time.Unix(n, 0).UTC(), true, nil
}

// readPassphrase reads a passphrase file (one trailing newline removed),
// warning on stderr if other users can read it.
func readPassphrase(path string, stderr io.Writer) ([]byte, error) {
	pass, warn, err := keys.ReadPassphraseFile(path)
	if err != nil {
		return nil, fmt.Errorf("--passphrase-file: %w", err)
	}
	if warn != "" {
		fmt.Fprintf(stderr, "lazarus: warning: %s\n", warn)
	}
	return pass, nil
}
