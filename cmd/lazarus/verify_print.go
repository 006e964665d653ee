package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// printVerify prints the report for people.
func printVerify(w io.Writer, r *verify.Report) {
	if r.Generation != "" {
		verdict := "every segment can be rebuilt from the pages archives would keep"
		switch {
		case r.Manifest.Kept == 0:
			verdict = "NOT recoverable from the pages archives would keep: no manifest on any of them"
		case !r.Rebuildable:
			verdict = "NOT every segment can be rebuilt from the pages archives would keep"
		}
		fmt.Fprintf(w, "generation %s (made %s): %s\n", r.Generation, r.Time.Format(time.RFC3339), verdict)
	}
	for _, s := range r.Segments {
		fmt.Fprintf(w, "  segment %-12s %s of k=%d+m=%d, fewest blocks in a stripe %d (%d needed)",
			s.Name, count(s.Stripes, "stripe", "stripes"), s.K, s.M, s.MinReachable, s.K)
		if !s.Rebuildable {
			fmt.Fprintf(w, "  SHORT: %s", count(s.ShortStripes, "stripe", "stripes"))
			for _, st := range s.Short {
				fmt.Fprintf(w, "; stripe %d: %d of %d (%d more on pages archives would not keep)", st.Stripe, st.Reachable, st.Need, st.Elsewhere)
			}
			if s.Detail != "" {
				fmt.Fprintf(w, " (%s)", printable(s.Detail))
			}
		}
		fmt.Fprintln(w)
	}
	if r.Generation != "" {
		m := r.Manifest
		if m.Kept == 0 {
			fmt.Fprintln(w, "  manifest: NOT on any page archives would keep: recovery could not tell the generation's segments")
		} else {
			fmt.Fprintf(w, "  manifest: root page %s, on %d of %s, %s archives would keep in all\n",
				yesNo(m.Root), m.OneHop, count(m.OneHopPages, "one-hop HTML page", "one-hop HTML pages"), count(m.Kept, "page", "pages"))
		}
	}
	printVerifyPages(w, r)
}

// printVerifyPages prints what the crawl saw: pages archives would not
// keep, signals, the trial restore and problems. Strings that come from
// the site (URLs, headers, errors quoting them) are made printable.
func printVerifyPages(w io.Writer, r *verify.Report) {
	c := r.Crawl
	pages := count(c.Pages, "HTML page", "HTML pages")
	if c.Aliases > 0 {
		pages += fmt.Sprintf(" (and %s under a second URL, such as /index.html for /)", count(c.Aliases, "page", "pages"))
	}
	if c.NotHTML > 0 {
		pages += fmt.Sprintf(", %s of another type recover's listing skips", count(c.NotHTML, "answer", "answers"))
	}
	fmt.Fprintf(w, "  crawl: %s, %s, %s, %s archives would keep, %s, %.1fs\n",
		count(c.Requests, "request", "requests"), pages, formatSize(c.Bytes), count(c.Carriers, "carrier", "carriers"),
		count(c.Failures, "failure", "failures"), c.DurationSeconds)
	for _, s := range []string{c.Limit, c.Robots} {
		if s != "" {
			fmt.Fprintf(w, "  crawl: %s\n", printable(s))
		}
	}
	const mostFailed = 5
	for _, f := range c.Failed[:min(mostFailed, len(c.Failed))] {
		fmt.Fprintf(w, "  crawl failed: %s\n", printable(f))
	}
	if more := c.Failures - min(mostFailed, len(c.Failed)); more > 0 {
		fmt.Fprintf(w, "  … %s (see --json)\n", count(more, "more failure", "more failures"))
	}
	printVerifyArchives(w, r)
	for _, e := range r.Excluded {
		fmt.Fprintf(w, "  not kept by archives: %s (%s): %s, %d of them on no page archives would keep", printable(e.URL), printable(e.Reason), count(e.Blocks, "block", "blocks"), e.Only)
		if e.Manifest {
			fmt.Fprint(w, ", and the manifest")
		}
		fmt.Fprintln(w)
	}
	printVerifyMissing(w, r)
	ok := 0
	for _, h := range r.Hygiene {
		if len(h.Problems) == 0 {
			ok++
		}
	}
	if len(r.Hygiene) > 0 {
		fmt.Fprintf(w, "  signals: %d of %s checked give the same bytes and validators twice and answer 304 when unchanged\n", ok, count(len(r.Hygiene), "page", "pages"))
	}
	for _, h := range r.Hygiene {
		if len(h.Problems) > 0 {
			fmt.Fprintf(w, "  signals: %s: %s\n", printable(h.URL), printable(strings.Join(h.Problems, "; ")))
		}
	}
	printVerifyEncodings(w, r.Encodings)
	if t := r.Restore; t != nil {
		fmt.Fprintf(w, "  trial restore: %s, %s, %s compared with the listing, %s\n", count(t.Segments, "segment", "segments"),
			count(t.Files, "entry", "entries"), formatSize(t.Bytes), count(len(t.Mismatches), "difference", "differences"))
		// A new slice: appending to Mismatches[:5] would write over the report's.
		for _, s := range slices.Concat(t.Mismatches[:min(5, len(t.Mismatches))], t.Skipped) {
			fmt.Fprintf(w, "  trial restore: %s\n", printable(s))
		}
	}
	const most = 5
	for _, p := range r.Problems[:min(most, len(r.Problems))] {
		fmt.Fprintf(w, "  problem: %s\n", printable(p))
	}
	if more := len(r.Problems) - min(most, len(r.Problems)) + r.ProblemsOmitted; more > 0 {
		fmt.Fprintf(w, "  … %s (see --json)\n", count(more, "more problem", "more problems"))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// printVerifyArchives prints what robots.txt keeps from each archive
// crawler, and the warnings.
func printVerifyArchives(w io.Writer, r *verify.Report) {
	for _, a := range r.Archives {
		if a.Disallowed == 0 {
			continue
		}
		fmt.Fprintf(w, "  robots.txt: %s (%s) may not keep %s another archive keeps:\n", a.Archive, strings.Join(a.Agents, ", "), count(a.Disallowed, "page", "pages"))
		for _, e := range a.Examples {
			fmt.Fprintf(w, "    %s\n", printable(e))
		}
		if more := a.Disallowed - len(a.Examples); more > 0 {
			fmt.Fprintf(w, "    … and %d more\n", more)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  WARNING: %s\n", printable(warn))
	}
}

// printVerifyEncodings prints, per Accept-Encoding crawlers send, the
// codings pages came in and whether they carry the same blocks (problems
// are among the warnings).
func printVerifyEncodings(w io.Writer, checks []verify.EncodingCheck) {
	for _, e := range checks {
		codings := make([]string, 0, len(e.Codings))
		for c, n := range e.Codings {
			codings = append(codings, fmt.Sprintf("%s (%d)", c, n))
		}
		slices.Sort(codings)
		fmt.Fprintf(w, "  encodings: asking for %q (%s): %s, the same blocks on %d of %s\n", e.AcceptEncoding, e.Crawlers,
			printable(strings.Join(codings, ", ")), e.SameBlocks, count(e.Checked, "page", "pages"))
	}
}

// printVerifyMissing prints the pages that lost the blocks the placement
// plan puts on them, or says no plan was known.
func printVerifyMissing(w io.Writer, r *verify.Report) {
	if r.Generation == "" {
		return
	}
	if !fullPlan(r) {
		what := "none known"
		if r.Plan != "" {
			what = "the manifest's, for the listing segment only"
		}
		hint := "give owner.key, or --state DIR: inject's state, or the Caddy module's storage directory STORAGE/lazarus/NAME"
		if r.Histories > 0 {
			hint = fmt.Sprintf("the serve history given records %s, none of them this generation's on this site: another site's state?",
				count(r.HistoryPages, "page", "pages"))
		}
		fmt.Fprintf(w, "  placement plan: %s (%s): pages that lost their blocks cannot all be named\n", what, hint)
		if r.MissingPages == 0 {
			return
		}
	}
	if r.MissingPages == 0 {
		fmt.Fprintf(w, "  placement plan (%s): every planned page carries its blocks\n", r.Plan)
		return
	}
	lack := "lack blocks they"
	if r.MissingPages == 1 {
		lack = "lacks blocks it"
	}
	fmt.Fprintf(w, "  missing blocks: %s of the placement plan (%s) %s should carry:\n", count(r.MissingPages, "page", "pages"), r.Plan, lack)
	const most = 10
	for _, m := range r.Missing[:min(most, len(r.Missing))] {
		what := fmt.Sprintf("%d of its %s", m.Blocks, count(m.Planned, "block", "blocks"))
		switch {
		case m.Planned == 0:
			what = "the manifest"
		case m.Manifest:
			what += ", and the manifest"
		}
		if !m.Fetched {
			what += ", the page could not be read: " + m.Error
		}
		fmt.Fprintf(w, "    %s (%s)\n", printable(m.URL), printable(what))
	}
	if more := r.MissingPages - min(most, len(r.Missing)); more > 0 {
		fmt.Fprintf(w, "    … and %d more (see --json)\n", more)
	}
}
