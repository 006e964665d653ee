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
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/verify"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/history"
)

// testHookVerify, if set, sees the options of a run just before it
// starts (tests pause it at a phase).
var testHookVerify func(*verify.Options)

// verifyCmd holds the flags of lazarus verify.
type verifyCmd struct {
	siteKeyFlags
	siteDir, contact, stateDir string
	rate                       float64
	maxPages, hygiene          int
	skipQuery, jsonOut         bool
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	c := &verifyCmd{}
	fs := flag.NewFlagSet("lazarus verify", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus verify --url URL --key server.key|owner.key [flags]\n\n"+
			"Crawls the live site the way an archive's crawler does (links only; robots.txt as the\n"+
			"Internet Archive (ia_archiver, archive.org_bot) and Common Crawl (CCBot) read it, each\n"+
			"by its own group or else the * group: a page counts if one of them may keep it;\n"+
			"noarchive; the 1 MiB cut) and says whether the newest generation can be rebuilt from\n"+
			"the pages archives would keep: blocks per stripe against the k needed, where the\n"+
			"manifest is, pages whose blocks archives would not keep, pages that lost the blocks\n"+
			"the placement plan puts on them (the listing with owner.key; the serve history with\n"+
			"--state: inject's state directory, or by default inject's for --site, or the Caddy\n"+
			"module's storage directory for the site, STORAGE/lazarus/NAME), and how the pages\n"+
			"answer repeated and conditional GETs.\n"+
			"With server.key (on the server) signatures are checked with its public half; with\n"+
			"owner.key or --passphrase-file the generation is also restored into a temporary\n"+
			"directory and every file compared with the listing.\n"+
			"Exit codes: 0 every segment rebuildable from the live pages, 3 some segment short\n"+
			"(named, with its stripes and missing blocks) or the manifest on no page archives would\n"+
			"keep, 1 error (site unreachable, nothing found, trial restore mismatch), 2 usage error,\n"+
			"130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM (the trial restore removed).\n\n"+
			"Examples:\n"+
			"  # on the server, after each deploy or from cron\n"+
			"  lazarus verify --url https://example.org/ --key /etc/lazarus/server.key\n\n"+
			"  # also find blocks on pages no link reaches, and print JSON for monitoring\n"+
			"  lazarus verify --url https://example.org/ --key server.key --site /var/www/html --json\n\n"+
			"  # name the pages that lost their blocks, from inject's serve history\n"+
			"  lazarus verify --url https://example.org/ --key server.key --state /var/lib/lazarus/example\n\n"+
			"  # the same for a site the Caddy module serves (its storage, the site's NAME)\n"+
			"  lazarus verify --url https://example.org/ --key server.key --state /var/lib/caddy/lazarus/NAME\n\n"+
			"  # offline machine with the owner key: a full trial restore\n"+
			"  lazarus verify --url https://example.org/ --key owner.key\n\nFlags:\n")
		fs.PrintDefaults()
	}
	c.bind(fs, "the site's `URL` (its root page starts the crawl)", "server.key or owner.key `FILE`")
	fs.StringVar(&c.siteDir, "site", "", "the static site's `DIR`: its pages no link reaches are read too")
	fs.StringVar(&c.stateDir, "state", "", "inject's state `DIR`, or the Caddy module's storage directory for the site (STORAGE/lazarus/NAME): its serve history says which page carries which block (default: inject's default state for --site, if it exists)")
	fs.BoolVar(&c.skipQuery, "skip-query", false, "ignore links with a query string, as some crawlers do")
	fs.IntVar(&c.maxPages, "max-pages", verify.DefaultMaxPages, "stop the crawl after `N` pages")
	fs.IntVar(&c.hygiene, "hygiene-pages", verify.DefaultHygienePages, "check the signals of the root page and `N` carriers (-1: none)")
	fs.Float64Var(&c.rate, "rate", verify.DefaultRate, "`N` requests per minute to the site (it is your own)")
	fs.StringVar(&c.contact, "contact", "", "an `EMAIL` added to the User-Agent")
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
	// The trial restore and the spool files go in a directory of this
	// run's own, removed however the run ends: a first signal cancels the
	// run, which removes it; a second removes it and exits at once.
	tmp, err := os.MkdirTemp("", "lazarus-verify-")
	if err != nil {
		errorf(stderr, "%v", err)
		return exitError
	}
	defer os.RemoveAll(tmp)
	sig.exitOnSecond(func() {
		os.RemoveAll(tmp)
		errorf(stderr, "interrupted again (%v); the temporary directory was removed", context.Cause(sig.again))
	})
	o.TempDir = tmp
	var done func()
	o.Progress, done = verifyProgress(stderr)
	if testHookVerify != nil {
		testHookVerify(&o)
	}
	rep, err := verify.Run(sig.ctx, o)
	done()
	if sig.stopped() && errors.Is(err, context.Canceled) {
		errorf(stderr, "interrupted (%v); the temporary directory was removed", context.Cause(sig.ctx))
		return sig.code()
	}
	if rep != nil { // nil: no crawl ran (site unreachable, bad options)
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "lazarus: warning: %s\n", printable(w))
		}
		if c.jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			enc.Encode(rep)
		} else {
			printVerify(stdout, rep)
		}
	}
	return verifyExit(err, rep, stderr)
}

// verifyExit maps Verify's error to an exit code, explaining it.
func verifyExit(err error, rep *verify.Report, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	errorf(stderr, "%s", printable(err.Error())) // it may quote the site's URLs
	if errors.Is(err, verify.ErrShort) {
		for _, h := range shortHints(rep) {
			hintf(stderr, "%s", h)
		}
		return exitPartial
	}
	return exitError
}

// shortHints says what would make a short generation whole, from what
// the report knows: pages archives would not keep, pages that lost their
// blocks, or blocks lost from pages no plan names.
func shortHints(rep *verify.Report) []string {
	if rep == nil {
		return nil
	}
	var out []string
	if len(rep.Excluded) > 0 {
		out = append(out, "make the pages listed under \"not kept by archives\" reachable and archivable (a link from the root, robots.txt, no noarchive, under 1 MiB)")
	}
	const rerun = "run lazarus inject again to put the blocks back (pages served by the Caddy module get their blocks as they are served: check that the lazarus handler covers them)"
	lost := blocksLost(rep)
	switch {
	case tooFewPages(rep, lost):
		out = append(out, "the site has too few pages archives would keep for this backup ("+
			strconv.Itoa(keptPages(rep))+" read): "+
			strings.Join(verify.CarrierRemedies(verify.CarrierFacts{Excluded: len(rep.Excluded), Queries: rep.Crawl.Queries}), "; or "))
	case rep.MissingPages > 0:
		out = append(out, "the pages listed under \"missing blocks\" lost the blocks the placement plan puts on them (a deploy or an edit that overwrote them?): "+rerun)
	case lost && !fullPlan(rep) && rep.Histories > 0:
		out = append(out, "blocks are missing from the pages, and the serve history given records none of this generation's pages, "+
			"so verify cannot say which pages lost them: check that --state is this site's (inject's state directory, or the Caddy module's "+
			"storage directory STORAGE/lazarus/NAME), or give owner.key to name them; "+rerun)
	case lost && !fullPlan(rep):
		out = append(out, "blocks are missing from the pages, and without a placement plan verify cannot say which pages lost them: give --state DIR "+
			"(inject's state directory, or the Caddy module's storage directory STORAGE/lazarus/NAME with file storage) or owner.key "+
			"(which works whatever the storage: Redis, say) to name them; "+rerun)
	case lost || len(rep.Excluded) == 0:
		out = append(out, rerun+", or with more redundancy (--redundancy) or more carriers")
	}
	return out
}

// keptPages is the number of pages the crawl read that archives would
// keep.
func keptPages(rep *verify.Report) int {
	return max(0, rep.Crawl.Pages-len(rep.Excluded))
}

// tooFewPages reports whether a whole crawl found the site's pages too
// few for the generation: a short stripe needs more blocks than there are
// pages archives would keep, or blocks are on no page while every such
// page carries some (the Caddy module planned for more pages than the
// site links: putting blocks back would not help).
func tooFewPages(rep *verify.Report, lost bool) bool {
	kept := keptPages(rep)
	if rep.Crawl.Limit != "" || rep.Crawl.Pages == 0 || rep.MissingPages > 0 {
		return false
	}
	for _, s := range rep.Segments {
		for _, st := range s.Short {
			if st.Need > kept {
				return true
			}
		}
	}
	return lost && rep.Crawl.Carriers >= kept
}

// blocksLost reports whether some short stripe lacks blocks even counting
// those on pages archives would not keep: they are on no page.
func blocksLost(rep *verify.Report) bool {
	for _, s := range rep.Segments {
		if s.ShortStripes > len(s.Short) {
			return true // not all listed: assume so
		}
		for _, st := range s.Short {
			if st.Reachable+st.Elsewhere < st.Need {
				return true
			}
		}
	}
	return false
}

// fullPlan reports whether the placement plan names the pages of every
// block: the listing or the serve history, not only the manifest's
// carriers of the listing segment.
func fullPlan(rep *verify.Report) bool {
	return strings.Contains(rep.Plan, "listing") || strings.Contains(rep.Plan, "serve history")
}

// options checks the flags and loads the key.
func (c *verifyCmd) options(stderr io.Writer) (verify.Options, error) {
	o := verify.Options{SiteURL: c.site, SiteDir: c.siteDir, SkipQuery: c.skipQuery, MaxPages: c.maxPages,
		HygienePages: c.hygiene, Rate: c.rate, Contact: c.contact}
	if err := c.check("verify"); err != nil {
		return o, err
	}
	switch {
	case c.maxPages <= 0 || c.rate <= 0:
		return o, errors.New("--max-pages and --rate must be positive")
	case c.hygiene == 0 || c.hygiene < -1:
		return o, fmt.Errorf("--hygiene-pages %d: give -1 for no checks, or a count of carriers (0 would check the root page only)", c.hygiene)
	}
	if c.siteDir != "" {
		if info, err := os.Stat(c.siteDir); err != nil || !info.IsDir() {
			return o, fmt.Errorf("--site %q is not a directory", c.siteDir)
		}
	}
	hist, err := c.history(stderr)
	if err != nil {
		return o, err
	}
	o.History = hist
	o.ServerKey, o.OwnerKey, o.Passphrase, err = c.load(stderr)
	return o, err
}

// history returns inject's serve history: --state DIR's, else the one
// in inject's default state directory for --site, if there is one.
func (c *verifyCmd) history(stderr io.Writer) ([]history.Store, error) {
	if c.stateDir != "" {
		d := filepath.Join(c.stateDir, injector.HistoryDir)
		if !isDir(d) {
			return nil, fmt.Errorf("--state %s: no serve history (%s) in it: is it inject's state directory, or the Caddy module's STORAGE/lazarus/NAME?", c.stateDir, injector.HistoryDir)
		}
		return []history.Store{history.Dir(d)}, nil
	}
	if c.siteDir == "" {
		return nil, nil
	}
	state, err := defaultStateDir(injector.Options{SiteDir: c.siteDir, SiteURL: c.site})
	if err != nil {
		return nil, nil // no default state directory: no plan from it
	}
	if d := filepath.Join(state, injector.HistoryDir); isDir(d) {
		return []history.Store{history.Dir(d)}, nil
	}
	return nil, nil
}

// verifyProgress shows the crawl's progress on stderr and returns the
// function that ends it once Verify returns. On a terminal one line is
// rewritten as pages come; in a log a line comes at most every logEvery,
// the first only after logEvery, so a short crawl prints none.
func verifyProgress(w io.Writer) (func(verify.Progress), func()) {
	return verifyProgressOn(newProgressLine(w))
}

// verifyProgressOn is verifyProgress on a given progress line.
func verifyProgressOn(pl *progressLine) (func(verify.Progress), func()) {
	show := func(p verify.Progress) {
		if !pl.tty && time.Since(pl.start) < logEvery {
			return
		}
		switch p.Phase {
		case "crawl":
			pl.show(fmt.Sprintf("lazarus: crawling: %s, %d queued…", count(p.Fetched, "page", "pages"), p.Queued), false)
		case "unlinked":
			pl.show("lazarus: reading the site directory's unlinked pages…", false)
		case "hygiene":
			pl.show("lazarus: checking the pages' signals…", false)
		case "restore":
			pl.show("lazarus: trial restore…", false)
		}
	}
	return show, func() { clearProgress(pl) }
}

// clearProgress removes a terminal progress line left open, so the
// report does not follow it.
func clearProgress(pl *progressLine) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.open && pl.tty {
		fmt.Fprintf(pl.w, "\r%-79s\r", "")
	}
	pl.open = false
}
