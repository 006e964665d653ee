package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
	"github.com/lazarus-preserve/lazarus/internal/statushtml"
)

type statusCmd struct {
	siteKeyFlags
	state, siteDir, htmlOut, asOf string
	contact                       string
	rate                          float64
	spotChecks, maxFetches        int
	sources, histories            listFlag
	jsonOut, noLive               bool
	stderr                        io.Writer
	// archive is what lazarus capture recorded of the newest generations
	// (archiveState), shown after the audit's report.
	archive *genstate.Record
}

func runStatus(args []string, stdout, stderr io.Writer) int {
	c := &statusCmd{stderr: stderr}
	fs := flag.NewFlagSet("lazarus status", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus status --url URL --key server.key|owner.key [--source SPEC...] [--history DIR...] [--json] [--html FILE]\n\n"+
			"Tells, before the site is lost, what the web archives hold of it: per generation, segment and stripe,\n"+
			"the distinct blocks archived against the k needed (per archive and combined), the newest restore point\n"+
			"and its age, and the estimated probability that the newest generation is recoverable now, in 7 and in 30 days.\n"+
			"With the serve history inject and the Caddy module record, captures are known from the archives' listings\n"+
			"alone; only captures whose digest the history does not know are fetched (once; --state keeps what they held,\n"+
			"--max-fetches bounds them), and one capture per archive and generation is spot-checked (--spot-checks).\n"+
			"Without a history, the live site's root page is read once to learn the newest generation (--no-live skips it).\n"+
			"server.key suffices: signatures are checked with its public half, nothing is decrypted.\n"+
			"Without --source, status contacts the Internet Archive (web.archive.org) and Common Crawl\n"+
			"(index.commoncrawl.org, data.commoncrawl.org), over the Internet; any --source replaces these defaults:\n"+
			"--source warc=PATH or dir=PATH alone (with --no-live, or a history) reads local files only.\n"+
			"Sources (--source, repeatable; default: wayback and commoncrawl): as for lazarus recover\n"+
			"(wayback[=BASE], commoncrawl[=INDEX[,DATA]], cdx=URL[,REPLAY], pywb=URL[,REPLAY], memento=TIMEMAP_BASE,\n"+
			"warc=PATH, dir=PATH).\n"+
			"Exit codes: 0 the newest generation is recoverable from the archives now, 3 only an older one is\n"+
			"(it is named, with its age), 1 none is (or an error), 2 usage error.\n\n"+
			"Examples:\n"+
			"  # on the server, after inject (its default state directory's history is used with --site)\n"+
			"  lazarus status --url https://example.org/ --key /etc/lazarus/server.key --site /var/www/html --contact you@example.org\n\n"+
			"  # for cron and monitoring, with a report page\n"+
			"  lazarus status --url https://example.org/ --key server.key --history /var/lib/lazarus/history \\\n"+
			"      --state /var/cache/lazarus-status --json --html /var/www/html/lazarus-status.html\n\nFlags:\n")
		fs.PrintDefaults()
	}
	c.bind(fs, "the site's `URL`", "server.key or owner.key `FILE` (only the public half is used)")
	fs.Var(&c.sources, "source", "an archive to audit, `SPEC` (see above; repeatable)")
	fs.Var(&c.histories, "history", "a serve history `DIR`: inject's STATE/history (or STATE itself), or the Caddy module's lazarus/NAME/history in its file storage (repeatable)")
	fs.StringVar(&c.siteDir, "site", "", "the static site `DIR` inject writes: its default state directory's history is used when no --history is given")
	fs.StringVar(&c.state, "state", "", "`DIR` caching what fetched captures held, so a rerun fetches nothing again")
	fs.StringVar(&c.asOf, "as-of", "", "audit the archives as they stood at `TIME` (2026-01-31, 2026-01-31T12:00:00Z or 20260131120000; default now)")
	fs.Float64Var(&c.rate, "rate", 0, "requests per minute to every archive host (default: 24 for the Internet Archive, 30 elsewhere)")
	fs.StringVar(&c.contact, "contact", "", "an `EMAIL` added to the User-Agent, so archives can reach you")
	fs.IntVar(&c.spotChecks, "spot-checks", status.DefaultSpotChecks, "history-known captures fetched at random, per archive and per generation the verdict depends on, to check the archive's listed digests (0 trusts the listings: the fewest requests)")
	fs.IntVar(&c.maxFetches, "max-fetches", status.DefaultMaxFetches, "at most `N` requests for captures whose contents are unknown (the root page's and the carriers' newest first); --state goes on from there next run")
	fs.BoolVar(&c.noLive, "no-live", false, "without a serve history, do not read the live site's root page to learn the generation it serves")
	fs.BoolVar(&c.jsonOut, "json", false, "print the report as JSON")
	fs.StringVar(&c.htmlOut, "html", "", "write the report as one self-contained HTML page to `FILE`")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		errorf(stderr, "unexpected argument %q", fs.Arg(0))
		return exitUsage
	}
	o, err := c.options()
	if err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	if err := c.checkOutputs(); err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	sig := notifyInterrupt()
	defer sig.stop()
	if !c.jsonOut {
		o.Progress = statusProgress(stderr)
	}
	rep, err := status.Run(sig.ctx, o)
	switch {
	case err != nil && sig.stopped():
		errorf(stderr, "interrupted (%v); no report was written", context.Cause(sig.ctx))
		return sig.code()
	case err != nil:
		errorf(stderr, "%v", err)
		return exitError
	}
	return c.finish(rep, stdout, stderr)
}

// options checks the flags and builds Status's options.
func (c *statusCmd) options() (status.Options, error) {
	o := status.Options{SiteURL: c.site, StateDir: c.state, NoLive: c.noLive, MaxFetches: c.maxFetches, SpotChecks: c.spotChecks}
	switch {
	case c.spotChecks < 0:
		return o, fmt.Errorf("--spot-checks %d: want 0 or more", c.spotChecks)
	case c.maxFetches < 1:
		return o, fmt.Errorf("--max-fetches %d: want 1 or more", c.maxFetches)
	case c.spotChecks == 0:
		o.SpotChecks = status.NoSpotChecks
	}
	if err := c.check("status"); err != nil {
		return o, err
	}
	if c.asOf != "" {
		start, t, err := parsePeriod("--as-of", c.asOf)
		if err != nil {
			return o, err
		}
		now := time.Now()
		if t.After(now) && !start.After(now) {
			t = now // today's date (this month, …): as the archives stand now
		}
		if t.After(now) {
			return o, fmt.Errorf("--as-of %s: in the future (now is %s); status audits the archives as they stand or stood",
				t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
		o.Now = t
	}
	if err := auditSources(&o, c.sources.vals, c.rate, c.contact); err != nil {
		return o, err
	}
	var err error
	if o.ServerKey, o.OwnerKey, o.Passphrase, err = c.load(c.stderr); err != nil {
		return o, err
	}
	dirs, err := c.historyDirs()
	if err != nil {
		return o, err
	}
	for _, d := range dirs {
		o.History = append(o.History, history.Dir(d))
	}
	c.archive = c.archiveState(dirs)
	return o, nil
}

// historyDirs returns the history directories: each --history (an
// inject state directory stands for its history/), else, with --site,
// inject's default state directory's history if it exists.
func (c *statusCmd) historyDirs() ([]string, error) {
	var out []string
	for _, d := range c.histories.vals {
		info, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("--history: %w", err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("--history %s: not a directory", d)
		}
		if sub := filepath.Join(d, injector.HistoryDir); isDir(sub) && !isDir(filepath.Join(d, "records")) {
			d = sub
		}
		out = append(out, d)
	}
	if len(out) > 0 || c.siteDir == "" {
		return out, nil
	}
	state, err := defaultStateDir(injector.Options{SiteDir: c.siteDir, SiteURL: c.site})
	if err != nil {
		return nil, err
	}
	if d := filepath.Join(state, injector.HistoryDir); isDir(d) {
		out = append(out, d)
	} else {
		fmt.Fprintf(c.stderr, "lazarus: warning: no serve history in %s (inject's default state for --site %s): every capture with a new digest will be fetched\n", d, c.siteDir)
	}
	return out, nil
}

// auditSources sets the archives an audit lists (--source SPECs, by
// default the Wayback Machine and Common Crawl) and the client it reads
// them and the live site with, at rate requests a minute per host.
func auditSources(o *status.Options, specs []string, rate float64, contact string) error {
	if !(rate >= 0) || math.IsInf(rate, 0) {
		return fmt.Errorf("archive request rate %v: want requests per minute, or 0 for each archive's default", rate)
	}
	if len(specs) == 0 {
		specs = []string{"wayback", "commoncrawl"}
	}
	client := source.NewClient(source.ClientOptions{Rate: rate, Contact: contact})
	o.Client = client
	for _, spec := range specs {
		src, err := source.ParseArchive(spec, client)
		if err != nil {
			if kind, _, _ := strings.Cut(spec, "="); kind == "live" {
				return fmt.Errorf("--%w (lazarus verify checks the live site)", err)
			}
			return fmt.Errorf("--%w", err)
		}
		o.Sources = append(o.Sources, src)
	}
	return nil
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// checkOutputs checks, before the audit, that what it will write can be
// written: --html's directory takes a new file, and --state is a
// directory status can create and write in. Errors name the user's path;
// runStatus makes them usage errors (exit 2), as for any flag given a
// value that cannot be used.
func (c *statusCmd) checkOutputs() error {
	if c.htmlOut != "" {
		dir := filepath.Dir(c.htmlOut)
		if err := replaceableFile(c.htmlOut); err != nil {
			return fmt.Errorf("--html %s: %w", c.htmlOut, err)
		}
		if err := probeWritable(dir); err != nil {
			return fmt.Errorf("--html %s: cannot write in %s: %w", c.htmlOut, dir, unwrapPath(err))
		}
	}
	if c.state != "" {
		if err := os.MkdirAll(c.state, 0o700); err != nil {
			return fmt.Errorf("--state %s: %w", c.state, unwrapPath(err))
		}
		if err := probeWritable(c.state); err != nil {
			return fmt.Errorf("--state %s: cannot write in it: %w", c.state, unwrapPath(err))
		}
	}
	return nil
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".lazarus-status-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// unwrapPath drops the temporary or intermediate file name of a path
// error ("open /dir/.lazarus-status-123: permission denied" is
// "permission denied"): the message names the user's path instead.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// finish writes the outputs and maps the report to the exit code.
func (c *statusCmd) finish(rep *status.Report, stdout, stderr io.Writer) int {
	if c.htmlOut != "" {
		if err := writeStatusHTML(c.htmlOut, rep); err != nil {
			errorf(stderr, "--html %s: %v", c.htmlOut, unwrapPath(err))
			return exitError
		}
	}
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(statusJSON{Report: rep, ArchiveState: c.archive}); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	} else {
		printStatus(stdout, rep)
		printStatusArchiveState(stdout, c.archive)
	}
	if !c.jsonOut {
		statusHints(stderr, rep)
	}
	rp := rep.RestorePoint
	switch rep.Outcome() {
	case status.OlderRecoverable:
		if !c.jsonOut {
			hintf(stderr, "only generation %s (%s old) is recoverable from the archives%s; the newest, %s, is not yet", rp.Generation, humane.Duration(rp.Age), asOf(rep), rep.Newest)
		}
	case status.NothingRecoverable:
		if c.jsonOut {
			break
		}
		if rep.Cause != nil {
			errorf(stderr, "%s", printable(rep.Cause.Message))
		} else {
			errorf(stderr, "no generation is recoverable from the archives %s", nowOrAsOf(rep))
		}
	}
	return statusExit(rep.Outcome())
}

// statusHints says, in the command's words, what would let the audit see
// more: the serve history, more fetches, a state directory.
func statusHints(stderr io.Writer, rep *status.Report) {
	if a := rep.Assessment; a != nil && a.Reason == status.AssessCarriersUnknown {
		hintf(stderr, "give --history (inject's STATE/history, or the Caddy storage's lazarus/NAME/history) to learn which pages carry the generation")
	}
	unfetched := 0
	for _, s := range rep.Sources {
		unfetched += s.Unfetched
	}
	if unfetched > 0 {
		hintf(stderr, "%s left unfetched: raise --max-fetches, or give --state and run again to go on where this run stopped", count(unfetched, "capture was", "captures were"))
	}
}

// statusExit is the exit status for an audit's outcome: 0 the newest
// generation is recoverable, 3 only an older one, 1 none.
func statusExit(o status.Outcome) int {
	switch o {
	case status.NewestRecoverable:
		return exitOK
	case status.OlderRecoverable:
		return exitPartial
	default:
		return exitError
	}
}

// replaceableFile refuses a path the report page must not replace: a
// directory, or a device, FIFO or socket (the page is renamed over the
// path, which as root would swap /dev/zero for a file).
func replaceableFile(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // absent (or unreadable: the write will say)
	case info.IsDir():
		return errors.New("a directory, want a file name")
	case !info.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%v)", info.Mode().Type())
	}
	return nil
}

// writeStatusHTML writes the report page atomically, mode 0644, through
// a root opened on its directory: a user who can write the directory
// cannot make status (run as root, say) set the mode of another file by
// swapping a link in (see rootfile.WriteAtomicMode).
func writeStatusHTML(path string, rep *status.Report) error {
	if err := replaceableFile(path); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := statushtml.Write(&buf, rep, statusExit(rep.Outcome())); err != nil {
		return err
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return rootfile.WriteAtomicMode(root, filepath.Base(path), buf.Bytes(), 0o644)
}

// statusProgress shows listing and fetching on stderr.
func statusProgress(w io.Writer) func(status.Progress) {
	pl := newProgressLine(w)
	return func(p status.Progress) {
		switch p.Phase {
		case "list":
			pl.show(fmt.Sprintf("lazarus: listing %s (%s so far)", p.Source, count(p.Listed, "capture", "captures")), false)
		case "fetch":
			pl.show(fmt.Sprintf("lazarus: %s listed, %d known; fetched %d of %d with unknown digests, %s elapsed",
				count(p.Listed, "capture", "captures"), p.Known, p.Fetched, p.ToFetch, pl.elapsed()), false)
		case "assess":
			pl.show(fmt.Sprintf("lazarus: %s listed, %d known from the history or the cache, %d fetched, in %s",
				count(p.Listed, "capture", "captures"), p.Known, p.Fetched, pl.elapsed()), true)
		}
	}
}
