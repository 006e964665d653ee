package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

type recoverCmd struct {
	siteKeyFlags
	out, state, pages       string
	contact, at, generation string
	rate                    float64
	stderr                  io.Writer
	sources                 listFlag
	allowUnsigned, force    bool
	jsonOut                 bool
}

func runRecover(args []string, stdout, stderr io.Writer) int {
	c := &recoverCmd{stderr: stderr}
	fs := flag.NewFlagSet("lazarus recover", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus recover --url URL --out DIR --key owner.key --source SPEC...\n\n"+
			"Rebuilds the server side from archived copies of the site's pages.\n"+
			"Without --source, recover contacts the Internet Archive (web.archive.org), Common Crawl\n"+
			"(index.commoncrawl.org, data.commoncrawl.org) and the site itself, over the Internet;\n"+
			"any --source replaces these defaults: --source warc=PATH or dir=PATH alone reads local files only.\n"+
			"Sources (--source, repeatable; default: wayback, commoncrawl and live):\n"+
			"  wayback[=BASE]       the Internet Archive (CDX API + raw id_ replay; BASE defaults to https://web.archive.org)\n"+
			"  commoncrawl[=INDEX[,DATA]]  Common Crawl's newest 12 crawls (index and byte-range WARC fetches)\n"+
			"  warc=PATH            a .warc, .warc.gz or .wacz file, or a directory of them\n"+
			"  cdx=URL[,REPLAY]     another CDX server: a Wayback base (BASE/cdx/search/cdx, BASE/web/ replay) or an\n"+
			"                       endpoint such as https://host/coll/cdx or …/coll-index (replay under …/coll/);\n"+
			"                       the Wayback's or pywb's dialect is found from the URL and the first answer\n"+
			"  pywb=URL[,REPLAY]    a pywb collection (https://host/coll or its …/cdx endpoint), in pywb's dialect\n"+
			"  memento=TIMEMAP_BASE any Memento TimeMap endpoint or aggregator (BASE + page URL)\n"+
			"  dir=PATH             a wget/httrack mirror or saved pages\n"+
			"  live                 the site itself, if it still answers\n"+
			"Files are restored under OUT as inject packed them: segment NAME as OUT/NAME.\n"+
			"Exit codes: 0 everything rebuilt, 3 partial or not the newest generation, 1 error (nothing found, bad key, OUT not writable…),\n2 usage error, 130/143 interrupted (the journal keeps what was fetched).\n\n"+
			"Examples:\n"+
			"  # from the Internet Archive, Common Crawl and the live site (the default sources)\n"+
			"  lazarus recover --url https://example.org/ --key owner.key --out restored --contact you@example.org\n\n"+
			"  # from a WARC file and a wget mirror only, as it was at the end of January\n"+
			"  lazarus recover --url https://example.org/ --key owner.key --out restored \\\n"+
			"      --source warc=crawl.warc.gz --source dir=mirror/ --at 2026-01-31\n\n"+
			"  # a passphrase-mode site\n"+
			"  lazarus recover --url https://example.org/ --passphrase-file pass.txt --out restored\n\nFlags:\n")
		fs.PrintDefaults()
	}
	c.bind(fs, "the site's `URL`", "owner.key `FILE`")
	fs.StringVar(&c.out, "out", "", "`DIR` to restore into (created; existing files are kept unless --force)")
	fs.Var(&c.sources, "source", "where to look, `SPEC` (see above; repeatable)")
	fs.StringVar(&c.at, "at", "", "restore the newest generation made at or before `TIME` (2026-01-31, 2026-01-31T12:00:00Z or 20260131120000)")
	fs.StringVar(&c.generation, "generation", "", "restore generation `ID` (32 hex digits)")
	fs.Float64Var(&c.rate, "rate", 0, "requests per minute to every archive host (default: 24 for the Internet Archive, 30 elsewhere)")
	fs.StringVar(&c.contact, "contact", "", "an `EMAIL` added to the User-Agent, so archives can reach you")
	fs.StringVar(&c.state, "state", "", "`DIR` journaling listings and fetched captures, to resume (default OUT/.lazarus-recover)")
	fs.StringVar(&c.pages, "pages", "", "also write the recovered pages, Lazarus comments removed, into `DIR`")
	fs.BoolVar(&c.allowUnsigned, "allow-unsigned", false, "accept unsigned data, which ANYONE could have made")
	fs.BoolVar(&c.force, "force", false, "overwrite existing files in --out")
	fs.BoolVar(&c.jsonOut, "json", false, "print the report as JSON")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	o, err := c.options()
	if err != nil {
		errorf(stderr, "%v", err)
		return exitUsage
	}
	sig := notifyInterrupt()
	defer sig.stop()
	// The journal survives a kill: a second signal need not wait for the
	// first to be acted on.
	sig.exitOnSecond(func() {
		errorf(stderr, "interrupted again (%v); what was fetched is journaled in %s: run the same command again to resume", context.Cause(sig.again), o.StateDir)
	})
	o.Progress = recoverProgress(stderr)
	rep, err := lzrecover.Run(sig.ctx, o)
	if sig.stopped() && errors.Is(err, context.Canceled) {
		errorf(stderr, "interrupted (%v); what was fetched is journaled in %s: run the same command again to resume", context.Cause(sig.ctx), o.StateDir)
		return sig.code()
	}
	return c.finish(rep, err, stdout, stderr)
}

func (c *recoverCmd) options() (lzrecover.Options, error) {
	o := lzrecover.Options{SiteURL: c.site, Out: c.out, AllowUnsigned: c.allowUnsigned, Force: c.force, StateDir: c.state, PagesDir: c.pages}
	if c.out == "" {
		return o, errors.New("recover needs --out DIR")
	}
	if c.site != "" { // optional for mirrors and WARC files
		if err := checkSiteURL("recover", c.site); err != nil {
			return o, err
		}
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(c.out, lzrecover.JournalDir)
	}
	if c.at != "" {
		t, err := parseTime("--at", c.at)
		if err != nil {
			return o, err
		}
		o.At = t
	}
	if c.generation != "" {
		if _, err := manifest.ParseID(c.generation); err != nil {
			return o, fmt.Errorf("--generation: %w", err)
		}
		o.Generation = c.generation
	}
	if c.key == "" && c.passFile == "" && !c.allowUnsigned {
		return o, errors.New("recover needs --key owner.key or --passphrase-file FILE (or --allow-unsigned for public data)")
	}
	specs := c.sources.vals
	if len(specs) == 0 {
		specs = []string{"wayback", "commoncrawl", "live"}
	}
	for _, spec := range specs {
		kind, _, _ := strings.Cut(spec, "=")
		if c.site == "" && kind != "dir" && kind != "warc" {
			return o, fmt.Errorf("--source %s needs the site's --url", kind)
		}
	}
	client := source.NewClient(source.ClientOptions{Rate: c.rate, Contact: c.contact})
	for _, spec := range specs {
		src, err := sourceFor(spec, client)
		if err != nil {
			return o, err
		}
		o.Sources = append(o.Sources, src)
	}
	var err error
	o.OwnerKey, o.Passphrase, err = c.loadOwner(c.stderr)
	return o, err
}

// finish writes recovery.json, prints the summary and maps the outcome to
// an exit code.
func (c *recoverCmd) finish(rep *lzrecover.Report, err error, stdout, stderr io.Writer) int {
	if rep != nil {
		if c.jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			enc.Encode(rep)
		} else {
			printRecover(stdout, rep)
		}
	}
	if err == nil {
		return exitOK
	}
	errorf(stderr, "%v", err)
	// A hint names the report only where it was saved.
	see := func(what string) string {
		if rep == nil || rep.Saved == "" {
			return ""
		}
		return fmt.Sprintf("see %s for %s; ", rep.Saved, what)
	}
	switch {
	case errors.Is(err, lzrecover.ErrWrite):
		h := fmt.Sprintf("make %s writable (or give another --out), then run the same command again", c.out)
		if rep != nil && rep.Saved != "" {
			h += "; the report is " + rep.Saved
		}
		hintf(stderr, "%s", h)
		return exitError
	case errors.Is(err, lzrecover.ErrNotCoherent), errors.Is(err, lzrecover.ErrOlder):
		hintf(stderr, "%smore sources may hold the missing blocks", see("which segment comes from which generation"))
		return exitPartial
	case errors.Is(err, lzrecover.ErrPartial):
		exists, short := 0, 0
		for _, s := range rep.Segments {
			switch s.Status {
			case "exists":
				exists++
			case "short":
				short++
			}
		}
		if exists > 0 {
			hintf(stderr, "some files already exist in %s: restore into an empty --out, or overwrite them with --force", c.out)
		}
		switch {
		case short > 0:
			hintf(stderr, "%smore sources may hold the missing blocks", see("what is missing"))
		case rep.Saved != "":
			hintf(stderr, "the report is %s", rep.Saved)
		}
		return exitPartial
	case errors.Is(err, lzrecover.ErrNothingFound) && rep != nil && rep.Foreign > 0 && c.passFile != "":
		hintf(stderr, "check the passphrase: it must be the one the site's inject used, byte for byte (one trailing newline is ignored)")
	case errors.Is(err, lzrecover.ErrNothingFound) && rep != nil && rep.Foreign > 0:
		hintf(stderr, "recover with the owner.key made together with the server.key the site used (lazarus keygen writes both)")
	case errors.Is(err, lzrecover.ErrNothingFound) && rep != nil && rep.Unsigned > 0:
		hintf(stderr, "the site published unsigned (public) data: add --allow-unsigned only if you trust whoever could have made it, that is anyone")
	case errors.Is(err, lzrecover.ErrNothingFound) && rep != nil:
		hintCDXBase(stderr, rep.Sources)
	}
	return exitError
}

func printRecover(w io.Writer, r *lzrecover.Report) {
	gen := r.Generation
	if r.MadeFor != "" {
		gen += " (made for " + printable(r.MadeFor) + ")"
	}
	switch {
	case r.Generation != "" && len(r.Newer) == 0:
		fmt.Fprintf(w, "generation %s: every segment rebuilt\n", gen)
	case r.Generation != "":
		fmt.Fprintf(w, "generation %s: every segment rebuilt, but it is NOT the newest generation seen\n", gen)
	}
	for _, n := range r.Newer {
		fmt.Fprintf(w, "  newer generation %s of %s seen, not rebuilt: %s\n", n.Generation, n.Time.Format(time.RFC3339), printable(n.Detail))
	}
	for _, s := range r.Segments {
		from := "from generation " + s.Generation
		if r.Generation != "" && s.Generation != r.Generation {
			// Unchanged since s.Generation, whose blocks the restored
			// generation carries on: its content is r.Generation's.
			from = fmt.Sprintf("unchanged since generation %s, carried over into %s (its newest content)", s.Generation, r.Generation)
		}
		fmt.Fprintf(w, "  segment %-12s %-8s %s, %s, %s", printable(s.Name), s.Status, from, count(s.Files, "file", "files"), formatSize(s.Bytes))
		if len(s.Paths) > 0 {
			fmt.Fprintf(w, " in %s", printable(strings.Join(s.Paths, ", ")))
		}
		if s.Detail != "" {
			fmt.Fprintf(w, "  (%s)", printable(s.Detail))
		}
		fmt.Fprintln(w)
	}
	printOwners(w, r.Owners)
	fmt.Fprintf(w, "  %s listed, %d fetched, %s, %d rejected\n", count(r.Captures, "capture", "captures"), r.Pages, count(r.Blocks, "good block", "good blocks"), r.Rejected)
	const most = 5
	for _, p := range r.Problems[:min(most, len(r.Problems))] {
		fmt.Fprintf(w, "  problem: %s\n", printable(p))
	}
	if more := len(r.Problems) - min(most, len(r.Problems)) + r.ProblemsOmitted; more > 0 {
		where := ""
		if r.Saved != "" {
			where = fmt.Sprintf(" (the first %d in %s)", lzrecover.MaxProblems, r.Saved)
		}
		fmt.Fprintf(w, "  … %s%s\n", count(more, "more problem", "more problems"), where)
	}
}

// printOwners says which owners, recorded by name, the restored files
// were given, and which not and why: one line for those given, one per
// reason for the others (the first few).
func printOwners(w io.Writer, owners []bundle.Ownership) {
	var given []string
	n, left := 0, 0
	for _, o := range owners {
		name := printable(o.User + ":" + o.Group)
		switch {
		case o.Restored:
			given = append(given, fmt.Sprintf("%s: %d", name, o.Entries))
			n += o.Entries
		case left < 5:
			fmt.Fprintf(w, "  owners: %s recorded as %s left owned by the user who ran recover: %s\n", count(o.Entries, "entry", "entries"), name, printable(o.Reason))
			left++
		}
	}
	if len(given) > 0 {
		fmt.Fprintf(w, "  owners: %s given their recorded owner and group (%s)\n", count(n, "entry", "entries"), strings.Join(given, ", "))
	}
}

// sourceFor parses one --source SPEC (recover.ParseSource, its error
// worded for the flag).
func sourceFor(spec string, client source.Doer) (source.Source, error) {
	src, err := source.Parse(spec, client)
	if err != nil {
		return nil, fmt.Errorf("--%w", err)
	}
	return src, nil
}

// parseTime accepts RFC 3339, a date, or a 4–14 digit archive timestamp
// (all UTC unless a zone is given). A date means its end: "2026-01-31"
// includes that whole day. flag ("--at", "--as-of") names the flag in
// the error.
func parseTime(flag, v string) (time.Time, error) {
	_, end, err := parsePeriod(flag, v)
	return end, err
}

// parsePeriod reads a time as parseTime does and also returns when the
// period it names begins: a date or a partial timestamp names a period
// (its end is the time meant), a full time names itself.
func parsePeriod(flag, v string) (start, end time.Time, err error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, t, nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, t.Add(24*time.Hour - time.Second), nil
	}
	if t, err := archive.ParseTimestamp(v); err == nil {
		return t, endOfPeriod(t, len(v)), nil
	}
	return time.Time{}, time.Time{}, fmt.Errorf("%s %q: use 2026-01-31, 2026-01-31T12:00:00Z or 20260131120000", flag, v)
}

// endOfPeriod moves a partial archive timestamp of n digits (a year, a
// month, a day, an hour or a minute) to the last second of that period,
// as a date "2026-01-31" means its last second: "at or before 20260131"
// includes that day.
func endOfPeriod(t time.Time, n int) time.Time {
	switch n {
	case 4:
		return t.AddDate(1, 0, 0).Add(-time.Second)
	case 6:
		return t.AddDate(0, 1, 0).Add(-time.Second)
	case 8:
		return t.AddDate(0, 0, 1).Add(-time.Second)
	case 10:
		return t.Add(time.Hour - time.Second)
	case 12:
		return t.Add(time.Minute - time.Second)
	}
	return t
}

// hintCDXBase names the spelling of a pywb collection when a cdx= source
// given as a base URL was answered 404 where the Internet Archive's CDX
// API would be: the URL was likely a collection's.
func hintCDXBase(w io.Writer, sources []*lzrecover.SourceReport) {
	for _, s := range sources {
		if strings.HasPrefix(s.Name, "cdx=") && s.Captures == 0 && strings.Contains(s.Error, "/cdx/search/cdx") && strings.Contains(s.Error, "status 404") {
			hintf(w, "%s has no Internet Archive CDX API (/cdx/search/cdx answered 404); for a pywb collection give its endpoint, --source %s/cdx, or --source pywb=%s",
				printable(s.Name), printable(s.Name), printable(strings.TrimPrefix(s.Name, "cdx=")))
		}
	}
}
