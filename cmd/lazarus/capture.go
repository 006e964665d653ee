package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// capturePollStart and capturePollMax, when set, replace the Save Page
// Now client's status polling intervals (tests poll every millisecond).
var capturePollStart, capturePollMax time.Duration

// captureCmd holds the settings of lazarus capture: its defaults, then
// the [capture] table and the site's settings of --config FILE, then the
// flags.
type captureCmd struct {
	siteKeyFlags
	accessKeys, spnBase    string
	siteDir, contact, rate string
	stateDir, requests     string
	siteRate, archiveRate  float64
	margin, max, pending   int
	attempts               int
	wait, waitEvery        time.Duration
	waitLive, retry, grace time.Duration
	sources, histories     listFlag
	dryRun, jsonOut        bool
	cfg                    *injectConfig // --config's, nil without it
}

const captureUsage = `Usage: lazarus capture --url URL --key server.key [flags]
       lazarus capture --config lazarus.toml [flags]

The capture-and-confirm loop, for the line after a deploy: asks the archives that capture on
request (the Internet Archive's Save Page Now) to capture the pages of the newest generation that
matter, asks again for what fails or does not show, and audits the archives until they hold it.
It crawls the live site as lazarus verify does and audits the archives as lazarus status does,
then asks, in order of marginal value, for the page carrying the manifest (the root page first)
unless an archive holds it, then for the carriers whose blocks raise the most stripes still below
k + --margin. It never asks for more pages than carry blocks, nor for pages of another site.
With --wait it audits again every --wait-every and asks again for the pages still short: a failed
request after --retry (doubled after each failure), a capture the archive took but does not list
after --grace, each page at most --attempts times.

Requests (--requests): auto (the default) sends them with the key pair of --access-key-file
(12 a minute, each capture's job status), or without keys (4 a minute, one at a time, confirmed
by the archive's listing; the Internet Archive has refused programs without keys since 2025:
after a refusal none are sent for a week); keyed sends only with keys; off sends none and only
audits. Submissions stay within --rate and --pending, honour Retry-After and the session limit,
and stop at the daily limit. --dry-run prints the plan and sends nothing.

--config FILE reads the site's settings from inject's lazarus.toml (site_url, key or
passphrase_file, site, state) and this command's from its [capture] table (the flags' names in
snake_case); flags override it. With inject's state directory (--state, or state or site in the
config) capture waits up to --wait-live for the live site to serve the generation inject made
last, and records what it asked and what the archives confirm there: the next inject keeps
earlier generations on the pages until a newer one is confirmed.

ia.keys holds ACCESSKEY:SECRET (one line, or the two on two lines), from
https://archive.org/account/s3.php; keep it mode 600. The secret is never printed.
Exit codes: 0 the archives hold the newest generation (recoverable, as lazarus status says),
3 not yet (requests made or refused, the daily limit reached, the archive asking to wait over
5 minutes; what is short is said: captures take minutes to hours to show), 1 error (the access
key refused, the site unreachable, no archive readable, the live site not serving the generation
inject made), 2 usage error, 130 Ctrl-C (SIGINT), 143 SIGTERM (pending jobs abandoned).
--dry-run exits 0 once the plan is made. --spn must be https unless it is a loopback address.

Examples:
  # after each deploy (the recipes' line): ask, confirm, record for the next inject
  lazarus capture --config /etc/lazarus/lazarus.toml

  # the same by flags, with keys, waiting up to an hour for the archive to show the captures
  lazarus capture --url https://example.org/ --key /etc/lazarus/server.key \
      --access-key-file /etc/lazarus/ia.keys --wait 1h --contact you@example.org

  # what would be asked for, without asking
  lazarus capture --url https://example.org/ --key server.key --dry-run

Flags:
`

func runCapture(args []string, stdout, stderr io.Writer) int {
	c := &captureCmd{}
	if path := configArg(args); path != "" {
		cfg, err := loadInjectConfig(path)
		if err != nil {
			errorf(stderr, "%v", err)
			return exitUsage
		}
		c.fromConfig(cfg)
	}
	fs := flag.NewFlagSet("lazarus capture", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), captureUsage)
		fs.PrintDefaults()
	}
	c.flags(fs)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	o, err := c.options(stderr)
	if err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	rec, err := c.record()
	if err != nil {
		errorf(stderr, "%v", err)
		archiveStateHint(stderr, err)
		return exitError
	}
	o.Expect = expected(rec)
	if !c.dryRun {
		if o.Requesters, err = c.requesters(rec, stderr); err != nil {
			errorf(stderr, "%v", err)
			return exitUsage
		}
	}
	sig := notifyInterrupt()
	defer sig.stop()
	if !c.jsonOut {
		o.Progress = captureProgress(stdout, stderr, c.idle())
	}
	rep, err := capture.Run(sig.ctx, o)
	state := c.remember(rep, err, stderr)
	return c.finish(rep, state, err, sig, stdout, stderr)
}

// fromConfig takes the settings of --config as the defaults.
func (c *captureCmd) fromConfig(cfg *injectConfig) {
	c.cfg = cfg
	cc := cfg.Capture
	c.site, c.key, c.passFile, c.siteDir, c.stateDir = cfg.SiteURL, cfg.Key, cfg.PassphraseFile, cfg.Site, cfg.State
	c.accessKeys, c.spnBase, c.contact, c.rate, c.requests = cc.AccessKeyFile, cc.SPN, cc.Contact, cc.Rate, cc.Requests
	c.sources.vals, c.histories.vals = cc.Source, cc.History
	c.pending, c.max, c.attempts = cc.Pending, cc.Max, cc.Attempts
	if cc.Margin != nil {
		c.margin = *cc.Margin
	} else {
		c.margin = capture.DefaultMargin
	}
	c.wait, c.waitEvery, c.waitLive = duration(cc.Wait, 0), duration(cc.WaitEvery, 0), duration(cc.WaitLive, 0)
	c.retry, c.grace = duration(cc.Retry, 0), duration(cc.Grace, 0)
	c.siteRate, c.archiveRate = cc.SiteRate, cc.ArchiveRate
}

// flags declares the flags, each defaulting to the value so far (the
// command's default, or the config file's).
func (c *captureCmd) flags(fs *flag.FlagSet) {
	if c.cfg == nil {
		c.margin = capture.DefaultMargin
	}
	fs.String("config", "", "inject's lazarus.toml `FILE`: the site's settings and the [capture] table (flags override it)")
	c.bind(fs, "the site's `URL`", "server.key or owner.key `FILE` (only the public half is used)")
	fs.StringVar(&c.requests, "requests", orDefault(c.requests, requestsAuto), "`MODE`: auto (with the keys of --access-key-file, else without keys), keyed (with keys only), off (audit only)")
	fs.StringVar(&c.accessKeys, "access-key-file", c.accessKeys, "`FILE` holding the Internet Archive key pair, ACCESSKEY:SECRET")
	fs.StringVar(&c.spnBase, "spn", orDefault(c.spnBase, spn.DefaultBase), "the Save Page Now API's base `URL`")
	fs.Var(&c.sources, "source", "an archive to audit, `SPEC` as for lazarus status (repeatable; default: wayback and commoncrawl)")
	fs.Var(&c.histories, "history", "a serve history `DIR`, as for lazarus status (repeatable)")
	fs.StringVar(&c.siteDir, "site", c.siteDir, "the static site `DIR` inject writes: its default state directory is used without --state")
	fs.StringVar(&c.stateDir, "state", c.stateDir, "inject's state `DIR`: its serve history, the generation it made last, and where the archive state is recorded")
	fs.StringVar(&c.rate, "rate", c.rate, "at most `N/min` submissions (also N/s, N/h; default 12/min with keys, 4/min without)")
	fs.IntVar(&c.pending, "pending", c.pending, "at most `N` capture jobs pending at once (default 4 with keys, 1 without)")
	fs.IntVar(&c.margin, "margin", c.margin, "blocks wanted beyond k in every stripe")
	fs.IntVar(&c.max, "max", c.max, "at most `N` capture requests to each archive (0: no bound beyond the carrier pages)")
	fs.IntVar(&c.attempts, "attempts", orDefault(c.attempts, capture.DefaultAttempts), "at most `N` requests for one page")
	fs.DurationVar(&c.wait, "wait", c.wait, "after the first requests, keep auditing (and asking again) up to `D` (e.g. 30m) until the archives hold the generation")
	fs.DurationVar(&c.waitEvery, "wait-every", orDefault(c.waitEvery, capture.DefaultWaitEvery), "audit the archives every `D` while waiting")
	fs.DurationVar(&c.retry, "retry", orDefault(c.retry, capture.DefaultRetry), "ask again for a page whose request failed after `D`, doubled after each failure")
	fs.DurationVar(&c.grace, "grace", orDefault(c.grace, capture.DefaultGrace), "ask again for a page the archive took but does not list after `D`")
	fs.DurationVar(&c.waitLive, "wait-live", orDefault(c.waitLive, defaultWaitLive), "wait up to `D` for the live site to serve the generation inject made last (with inject's state)")
	fs.Float64Var(&c.siteRate, "site-rate", orDefault(c.siteRate, verify.DefaultRate), "`N` requests per minute to the site while crawling it")
	fs.Float64Var(&c.archiveRate, "archive-rate", c.archiveRate, "`N` requests per minute to every archive host while auditing (default: 24 for the Internet Archive, 30 elsewhere)")
	fs.StringVar(&c.contact, "contact", c.contact, "an `EMAIL` added to the User-Agent, so archives can reach you")
	fs.BoolVar(&c.dryRun, "dry-run", false, "print the plan and send nothing")
	fs.BoolVar(&c.jsonOut, "json", false, "print the report as JSON")
}

// idle says why a plan would send nothing: a dry run, --requests off,
// or no keys to ask with.
func (c *captureCmd) idle() string {
	switch {
	case c.dryRun:
		return "dry run"
	case c.requests == requestsOff:
		return "--requests off"
	}
	return "no keys to ask with"
}

// defaultWaitLive is --wait-live's default: a deploy's copy and a cache's
// refresh.
const defaultWaitLive = 2 * time.Minute

// options checks the settings and builds Run's options (without the
// requesters).
func (c *captureCmd) options(stderr io.Writer) (capture.Options, error) {
	var o capture.Options
	if err := c.check("capture"); err != nil {
		return o, err
	}
	switch {
	case c.requests != requestsAuto && c.requests != requestsKeyed && c.requests != requestsOff:
		return o, fmt.Errorf("--requests %q: want auto, keyed or off", c.requests)
	case c.margin < 0, c.max < 0, c.pending < 0, c.attempts < 1, c.wait < 0, c.waitEvery <= 0, c.siteRate <= 0, c.archiveRate < 0,
		c.retry <= 0, c.grace <= 0, c.waitLive < 0:
		return o, errors.New("--margin, --max, --pending, --wait and --wait-live take 0 or more; --attempts, --wait-every, --retry, --grace and --site-rate more than 0; --archive-rate 0 or more")
	}
	if c.rate != "" {
		if _, err := spn.ParseLimit(c.rate); err != nil { // a dry run checks what a real run would send with
			return o, fmt.Errorf("--%w", err)
		}
	}
	o.Margin, o.Max, o.Wait, o.WaitEvery = c.margin, c.max, c.wait, c.waitEvery
	o.Retry, o.Grace, o.Attempts, o.WaitLive = c.retry, c.grace, c.attempts, c.waitLive
	if c.margin == 0 {
		o.Margin = capture.NoMargin
	}
	o.Verify = verify.Options{SiteURL: c.site, Rate: c.siteRate, Contact: c.contact}
	v := &o.Verify // the audit takes the same key
	var err error
	if v.ServerKey, v.OwnerKey, v.Passphrase, err = c.load(stderr); err != nil {
		return o, err
	}
	return o, c.statusOptions(&o.Status, stderr)
}

// statusOptions builds the audit's sources and histories, as lazarus
// status does.
func (c *captureCmd) statusOptions(o *status.Options, stderr io.Writer) error {
	if err := auditSources(o, c.sources.vals, c.archiveRate, c.contact); err != nil {
		return err
	}
	histories := c.histories
	if state := c.injectState(); len(histories.vals) == 0 && state != "" && isDir(filepath.Join(state, injector.HistoryDir)) {
		histories.vals = []string{filepath.Join(state, injector.HistoryDir)}
	}
	sc := &statusCmd{siteKeyFlags: c.siteKeyFlags, siteDir: c.siteDir, histories: histories, stderr: stderr}
	dirs, err := sc.historyDirs()
	for _, d := range dirs {
		o.History = append(o.History, history.Dir(d))
	}
	return err
}

// readAccessKeys reads the key pair file: a bounded regular file, with a
// warning when other users can read it. Errors never quote its contents.
func readAccessKeys(path string, stderr io.Writer) (spn.Credentials, error) {
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Size() == 0 {
		return spn.Credentials{}, fmt.Errorf("--access-key-file (access_key_file under [capture]) %s: empty: %w", path, spn.ErrBadKeys)
	}
	data, warn, err := keys.ReadPassphraseFile(path)
	if err != nil {
		return spn.Credentials{}, fmt.Errorf("--access-key-file (access_key_file under [capture]) %s: %w", path, unwrapPath(err))
	}
	warnf(stderr, warn)
	creds, err := spn.ParseCredentials(data)
	if err != nil {
		return spn.Credentials{}, fmt.Errorf("--access-key-file (access_key_file under [capture]) %s: %w", path, err)
	}
	return creds, nil
}

// captureJSON is the report with the generation's recorded state.
type captureJSON struct {
	*capture.Report
	State *genstate.Generation `json:"archive_state,omitempty"`
}

// finish prints the report and the generation's recorded state, and maps
// the outcome to the exit code.
func (c *captureCmd) finish(rep *capture.Report, state *genstate.Generation, err error, sig *interrupt, stdout, stderr io.Writer) int {
	if sig.stopped() && errors.Is(err, context.Canceled) {
		errorf(stderr, "interrupted (%v); %s", context.Cause(sig.ctx), abandoned(rep))
		return sig.code()
	}
	if rep != nil {
		if c.jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(captureJSON{Report: rep, State: state}); err != nil {
				errorf(stderr, "%v", err)
				return exitError
			}
		} else if !errors.Is(err, capture.ErrSourcesFailed) { // no plan was made: the error says why
			printCaptureEnd(stdout, rep)
			if state != nil {
				fmt.Fprintf(stdout, "Archive state: %s\n", archiveStateLine(state))
			}
		}
	}
	switch {
	case err == nil && rep != nil && rep.DryRun && !c.dryRun: // --requests off, or no keys to ask with
		if rep.Safe {
			return exitOK
		}
		errorf(stderr, "the archives do not hold generation %s yet, and nothing was asked", rep.Generation)
		return exitPartial
	case err == nil:
		if rep != nil && rep.Stopped != "" {
			fmt.Fprintf(stderr, "lazarus: warning: requests stopped: %s\n", printable(rep.Stopped))
		}
		return exitOK
	case errors.Is(err, spn.ErrRefused):
		errorf(stderr, "the access key was refused by %s: check --access-key-file (access_key_file under [capture] in lazarus.toml; keys from https://archive.org/account/s3.php)", printable(c.spnBase))
		return exitError
	case errors.Is(err, spn.ErrUnreachable):
		errorf(stderr, "%s", printable(err.Error()))
		fmt.Fprintf(stderr, "lazarus: hint: check --spn (spn under [capture] in lazarus.toml; now %s): nothing was captured\n", printable(c.spnBase))
		return exitError
	case errors.Is(err, capture.ErrNotLive):
		errorf(stderr, "%s", printable(err.Error()))
		hintf(stderr, "check that --url (site_url) reaches the live site from here; run capture once the pages are deployed (the deploy recipes' line after publishing), or give a longer --wait-live (wait_live under [capture] in lazarus.toml); nothing was asked")
		return exitError
	case errors.Is(err, capture.ErrShort):
		errorf(stderr, "%s", printable(err.Error()))
		captureHints(stderr, rep, err)
		return exitPartial
	}
	errorf(stderr, "%s", printable(err.Error()))
	return exitError
}
