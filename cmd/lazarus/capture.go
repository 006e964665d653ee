package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/lazarus-preserve/lazarus/internal/verify"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// capturePollStart and capturePollMax, when set, replace the Save Page
// Now client's status polling intervals (tests poll every millisecond).
var capturePollStart, capturePollMax time.Duration

// captureCmd holds the flags of lazarus capture.
type captureCmd struct {
	siteKeyFlags
	accessKeys, spnBase    string
	siteDir, contact, rate string
	siteRate, archiveRate  float64
	margin, max, pending   int
	wait, waitEvery        time.Duration
	sources, histories     listFlag
	dryRun, jsonOut        bool
}

func runCapture(args []string, stdout, stderr io.Writer) int {
	c := &captureCmd{}
	fs := flag.NewFlagSet("lazarus capture", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus capture --url URL --key server.key --access-key-file ia.keys [flags]\n\n"+
			"Asks the Internet Archive's Save Page Now to capture the pages of the newest generation\n"+
			"that matter, so it is safe in days, not weeks. It crawls the live site as lazarus verify\n"+
			"does and audits the archives as lazarus status does, then asks, in order of marginal value,\n"+
			"for the page carrying the manifest (the root page first) unless an archive holds it, then\n"+
			"for the carriers whose blocks raise the most stripes still below k + --margin. It never asks\n"+
			"for more pages than carry blocks, nor for pages of another site. Submissions stay within\n"+
			"--rate and --pending (the API's limits for a logged-in user), honour Retry-After and the\n"+
			"session limit, and stop at the daily limit. Then it audits the archives again (every\n"+
			"--wait-every within --wait). Nothing is sent without --access-key-file; --dry-run prints\n"+
			"the plan and sends nothing.\n"+
			"ia.keys holds ACCESSKEY:SECRET (one line, or the two on two lines), from\n"+
			"https://archive.org/account/s3.php; keep it mode 600. The secret is never printed.\n"+
			"Exit codes: 0 the archives hold the newest generation (recoverable, as lazarus status says),\n"+
			"3 requests made but not yet safe (what is short is said; captures take minutes to hours to\n"+
			"show), the daily limit reached or the archive asking to wait over 5 minutes, 1 error (the\n"+
			"access key refused, the site unreachable, no archive readable), 2 usage error, 130 Ctrl-C\n"+
			"(SIGINT), 143 SIGTERM (pending jobs abandoned). --dry-run exits 0 once the plan is made,\n"+
			"whether or not the archives hold the generation safely. --spn must be https unless it is a\n"+
			"loopback address (the secret would travel in clear).\n\n"+
			"Examples:\n"+
			"  # after each deploy: ask, then wait up to an hour for the archive to show the captures\n"+
			"  lazarus capture --url https://example.org/ --key /etc/lazarus/server.key \\\n"+
			"      --access-key-file /etc/lazarus/ia.keys --wait 1h --contact you@example.org\n\n"+
			"  # what would be asked for, without asking\n"+
			"  lazarus capture --url https://example.org/ --key server.key --dry-run\n\nFlags:\n")
		fs.PrintDefaults()
	}
	c.bind(fs, "the site's `URL`", "server.key or owner.key `FILE` (only the public half is used)")
	fs.StringVar(&c.accessKeys, "access-key-file", "", "`FILE` holding the Internet Archive key pair, ACCESSKEY:SECRET (required unless --dry-run)")
	fs.StringVar(&c.spnBase, "spn", spn.DefaultBase, "the Save Page Now API's base `URL`")
	fs.Var(&c.sources, "source", "an archive to audit, `SPEC` as for lazarus status (repeatable; default: wayback and commoncrawl)")
	fs.Var(&c.histories, "history", "a serve history `DIR`, as for lazarus status (repeatable)")
	fs.StringVar(&c.siteDir, "site", "", "the static site `DIR` inject writes: its default state directory's history is used when no --history is given")
	fs.StringVar(&c.rate, "rate", spn.DefaultRate.String(), "at most `N/min` submissions (also N/s, N/h)")
	fs.IntVar(&c.pending, "pending", spn.DefaultMaxPending, "at most `N` capture jobs pending at once")
	fs.IntVar(&c.margin, "margin", capture.DefaultMargin, "blocks wanted beyond k in every stripe")
	fs.IntVar(&c.max, "max", 0, "at most `N` capture requests (0: no bound beyond the carrier pages)")
	fs.DurationVar(&c.wait, "wait", 0, "after the jobs, keep auditing the archives up to `D` (e.g. 30m) until they hold the generation")
	fs.DurationVar(&c.waitEvery, "wait-every", capture.DefaultWaitEvery, "audit the archives every `D` while waiting")
	fs.Float64Var(&c.siteRate, "site-rate", verify.DefaultRate, "`N` requests per minute to the site while crawling it")
	fs.Float64Var(&c.archiveRate, "archive-rate", 0, "`N` requests per minute to every archive host while auditing (default: 24 for the Internet Archive, 30 elsewhere)")
	fs.StringVar(&c.contact, "contact", "", "an `EMAIL` added to the User-Agent, so archives can reach you")
	fs.BoolVar(&c.dryRun, "dry-run", false, "print the plan and send nothing")
	fs.BoolVar(&c.jsonOut, "json", false, "print the report as JSON")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	o, err := c.options(stderr)
	if err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	sig := notifyInterrupt()
	defer sig.stop()
	if !c.jsonOut {
		o.Progress = captureProgress(stdout, stderr)
	}
	rep, err := capture.Run(sig.ctx, o)
	return c.finish(rep, err, sig, stdout, stderr)
}

// options checks the flags and builds RequestCaptures's options.
func (c *captureCmd) options(stderr io.Writer) (capture.Options, error) {
	var o capture.Options
	if err := c.check("capture"); err != nil {
		return o, err
	}
	switch {
	case c.accessKeys == "" && !c.dryRun:
		return o, errors.New("capture sends requests only with --access-key-file FILE (ACCESSKEY:SECRET, from https://archive.org/account/s3.php); --dry-run shows the plan without it")
	case c.margin < 0, c.max < 0, c.pending < 1, c.wait < 0, c.waitEvery <= 0, c.siteRate <= 0, c.archiveRate < 0:
		return o, errors.New("--margin, --max and --wait take 0 or more; --pending, --wait-every and --site-rate more than 0; --archive-rate 0 or more")
	}
	if _, err := spn.ParseLimit(c.rate); err != nil { // a dry run checks what a real run would send with
		return o, fmt.Errorf("--%w", err)
	}
	o.Margin, o.Max, o.Wait, o.WaitEvery = c.margin, c.max, c.wait, c.waitEvery
	if c.margin == 0 {
		o.Margin = capture.NoMargin
	}
	o.Verify = verify.Options{SiteURL: c.site, Rate: c.siteRate, Contact: c.contact}
	v := &o.Verify // the audit takes the same key
	var err error
	if v.ServerKey, v.OwnerKey, v.Passphrase, err = c.load(stderr); err != nil {
		return o, err
	}
	if err := c.statusOptions(&o.Status, stderr); err != nil {
		return o, err
	}
	if c.dryRun {
		return o, nil
	}
	client, err := c.spnClient(stderr)
	o.SPN = client
	return o, err
}

// statusOptions builds the audit's sources and histories, as lazarus
// status does.
func (c *captureCmd) statusOptions(o *status.Options, stderr io.Writer) error {
	if err := auditSources(o, c.sources.vals, c.archiveRate, c.contact); err != nil {
		return err
	}
	sc := &statusCmd{siteKeyFlags: c.siteKeyFlags, siteDir: c.siteDir, histories: c.histories, stderr: stderr}
	dirs, err := sc.historyDirs()
	for _, d := range dirs {
		o.History = append(o.History, history.Dir(d))
	}
	return err
}

// spnClient reads --access-key-file and makes the Save Page Now client.
func (c *captureCmd) spnClient(stderr io.Writer) (*spn.Client, error) {
	creds, err := readAccessKeys(c.accessKeys, stderr)
	if err != nil {
		return nil, err
	}
	rate, err := spn.ParseLimit(c.rate)
	if err != nil {
		return nil, fmt.Errorf("--%w", err)
	}
	client, err := spn.New(spn.Options{Base: c.spnBase, Credentials: creds, Rate: rate, MaxPending: c.pending, Contact: c.contact,
		PollStart: capturePollStart, PollMax: capturePollMax})
	if err != nil {
		return nil, fmt.Errorf("--spn: %w", err)
	}
	return client, nil
}

// readAccessKeys reads the key pair file: a bounded regular file, with a
// warning when other users can read it. Errors never quote its contents.
func readAccessKeys(path string, stderr io.Writer) (spn.Credentials, error) {
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Size() == 0 {
		return spn.Credentials{}, fmt.Errorf("--access-key-file %s: empty: %w", path, spn.ErrBadKeys)
	}
	data, warn, err := keys.ReadPassphraseFile(path)
	if err != nil {
		return spn.Credentials{}, fmt.Errorf("--access-key-file: %w", unwrapPath(err))
	}
	warnf(stderr, warn)
	creds, err := spn.ParseCredentials(data)
	if err != nil {
		return spn.Credentials{}, fmt.Errorf("--access-key-file %s: %w", path, err)
	}
	return creds, nil
}

// finish prints the report and maps the outcome to the exit code.
func (c *captureCmd) finish(rep *capture.Report, err error, sig *interrupt, stdout, stderr io.Writer) int {
	if sig.stopped() && errors.Is(err, context.Canceled) {
		errorf(stderr, "interrupted (%v); %s", context.Cause(sig.ctx), abandoned(rep))
		return sig.code()
	}
	if rep != nil {
		if c.jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				errorf(stderr, "%v", err)
				return exitError
			}
		} else if !errors.Is(err, capture.ErrSourcesFailed) { // no plan was made: the error says why
			printCaptureEnd(stdout, rep)
		}
	}
	switch {
	case err == nil:
		if rep != nil && rep.Stopped != "" {
			fmt.Fprintf(stderr, "lazarus: warning: requests stopped: %s\n", printable(rep.Stopped))
		}
		return exitOK
	case errors.Is(err, spn.ErrRefused):
		errorf(stderr, "the access key was refused by %s: check --access-key-file (keys from https://archive.org/account/s3.php)", printable(c.spnBase))
		return exitError
	case errors.Is(err, spn.ErrUnreachable):
		errorf(stderr, "%s", printable(err.Error()))
		fmt.Fprintf(stderr, "lazarus: hint: check --spn (now %s): nothing was captured\n", printable(c.spnBase))
		return exitError
	case errors.Is(err, capture.ErrShort):
		errorf(stderr, "%s", printable(err.Error()))
		captureHints(stderr, rep, err)
		return exitPartial
	}
	errorf(stderr, "%s", printable(err.Error()))
	return exitError
}
