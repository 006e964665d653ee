package main

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// printInject prints a run's result for people.
func printInject(w io.Writer, r *injector.Report, stateDir string) {
	if r.DryRun {
		fmt.Fprint(w, "dry run: nothing written\n")
	}
	fmt.Fprintf(w, "generation %s (%s)\n", r.Generation, generationVerb(r))
	for _, s := range r.Segments {
		state := "unchanged"
		if s.Changed {
			state = "changed"
		}
		what := fmt.Sprintf("%6d %-7s %10s →", s.Files, plural(s.Files, "entry", "entries"), formatSize(s.TarBytes))
		if s.Files == 0 && s.TarBytes == 0 {
			what = fmt.Sprintf("%25s", "file listing →")
		}
		fmt.Fprintf(w, "  segment %-12s %-9s %s %10s  %s of k=%d+m=%d × %s\n",
			s.Name, state, what, formatSize(s.Ciphertext), count(s.Stripes, "stripe", "stripes"), s.K, s.M, formatSize(int64(s.ShardSize)))
	}
	blocks, manifests, most, added := 0, 0, 0, int64(0)
	for _, p := range r.Pages {
		blocks += p.Blocks
		if p.Manifest {
			manifests++
		}
		most = max(most, p.AddedBytes)
		added += int64(p.AddedBytes)
	}
	var cipher int64
	for _, s := range r.Segments {
		cipher += s.Ciphertext
	}
	fmt.Fprintf(w, "  %s, %s placed, manifest on %s, at most %s added to a page\n",
		count(r.Carriers, "carrier page", "carrier pages"), count(blocks, "block", "blocks"), count(manifests, "page", "pages"), formatSize(int64(most)))
	of := "the ciphertext"
	if len(r.Kept) > 0 {
		of = "the ciphertext, earlier generations' blocks included"
	}
	fmt.Fprintf(w, "  %s added in all (%s %s)\n", formatSize(added), ratio(added, cipher), of)
	for _, line := range outlookLines(r.Outlook, r.Requests != nil) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if note := targetNote(r); note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
	if a := r.WithRequests; a != nil {
		fmt.Fprintf(w, "  counting on capture requests instead would plan %.0f%% of these bytes, for %s within %s under that model: each carrier page asked up to %s within the day, each request taken one time in two (the prior for keys; with wait = \"1h\" under [capture], lazarus capture retries that often; with the default wait, once)\n",
			100*a.Share, chance(a.Recoverability), humane.Duration(a.Requests.Horizon), count(a.Requests.Attempts, "time", "times"))
	}
	if n := len(r.Kept); n > 0 {
		var kept []string
		for _, k := range r.Kept {
			note := ""
			if k.Carried < k.Blocks {
				note = ": the pages had no room for the rest"
			}
			if k.Held {
				note += "; held: a segment shrank since"
			}
			kept = append(kept, fmt.Sprintf("%s (%d of %d blocks%s)", k.Generation, k.Carried, k.Blocks, note))
		}
		fmt.Fprintf(w, "  %s kept on the pages beside it: %s\n", count(n, "earlier generation", "earlier generations"), strings.Join(kept, ", "))
	}
	excluded := "every page can carry blocks"
	if n := len(r.Excluded); n > 0 {
		excluded = fmt.Sprintf("%s (see --json)", count(n, "page cannot carry blocks", "pages cannot carry blocks"))
	}
	if r.FullWidth {
		fmt.Fprintf(w, "  redundancy max: every stripe spans all %s, the most they hold (a page never carries two blocks of one stripe); a larger --page-budget adds nothing, more linked pages would\n",
			count(r.Carriers, "carrier page", "carrier pages"))
	}
	fmt.Fprintf(w, "  %s written; %s\n", count(r.Written, "file", "files"), excluded)
	if r.Sitemap != "" {
		fmt.Fprintf(w, "  sitemap: %s\n", sitemapLine(r.Sitemap))
	}
	fmt.Fprintf(w, "  state: %s\n", stateDir)
}

// printInjectWarnings prints the run's warnings on stderr, with --json
// too (where they are also in the JSON): a risk the run took on must be
// seen where errors are.
func printInjectWarnings(w io.Writer, r *injector.Report) {
	for _, msg := range r.Warnings {
		fmt.Fprintf(w, "lazarus: warning: %s\n", msg)
	}
}

// generationVerb says whether the generation is new, and what the run
// did with an unchanged one.
func generationVerb(r *injector.Report) string {
	switch {
	case r.New && r.Previous != "":
		return "new, replaces " + r.Previous
	case r.New:
		return "new"
	case r.Completed && r.DryRun:
		return "unchanged; a real run completes the pages an interrupted run left unwritten"
	case r.Completed:
		return "unchanged; completed the pages an interrupted run left unwritten"
	}
	return "unchanged"
}

// count is "1 file", "2 files", "0 files".
func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ratio formats a/b as "3.4×", or "—" without b.
func ratio(a, b int64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}

// targetNote says when the plan falls short of its target, after what is
// certain and the forecast: the planner's figure (each page kept
// independently with probability 1/2, or as --status estimates) is a
// ceiling, so it is shown only as a shortfall.
func targetNote(r *injector.Report) string {
	switch {
	case r.Requests != nil && r.Target > 0:
		short := ""
		if r.Recoverability < r.Target {
			short = fmt.Sprintf(", SHORT of its %s target (more linked pages or a larger --page-budget add room)", chance(r.Target))
		}
		return fmt.Sprintf("planned for the capture requests lazarus capture makes: %s; under that model the archives hold enough within %s with %s%s (a model figure: lazarus capture's audit tells whether they do)",
			r.Requests, humane.Duration(r.Requests.Horizon), chance(r.Recoverability), short)
	case r.Target > 0 && r.Recoverability < r.Target && r.OutsideSitePath > 0:
		return fmt.Sprintf("SHORT of the planner's %s target even if each page were kept independently: %s linked outside the --site-url path cannot carry blocks; give --site-url the address the root page is served at",
			chance(r.Target), count(r.OutsideSitePath, "page", "pages"))
	case r.Target > 0 && r.Recoverability < r.Target:
		return fmt.Sprintf("SHORT of the planner's %s target even if each page were kept independently (it reaches %s): "+
			"more linked pages or a larger --page-budget add room; what makes archives keep the pages is lazarus capture", chance(r.Target), chance(r.Recoverability))
	}
	return ""
}

// outlookLines says what is known of the generation first (the pages it
// may lose, its manifest's pages), then what the capture model expects,
// labelled as its prior (inject reads no capture history).
func outlookLines(o *injector.Outlook, requests bool) []string {
	if o == nil {
		return nil
	}
	var lines []string
	switch {
	case o.Survives == 0 && o.Carriers > 0:
		lines = append(lines, fmt.Sprintf("it needs every one of its %s; its manifest is on %s",
			count(o.Carriers, "carrier page", "carrier pages"), count(o.ManifestPages, "page", "pages")))
	case o.Survives < 0:
		lines = append(lines, fmt.Sprintf("the %s cannot rebuild it even if all are kept", count(o.Carriers, "carrier page", "carrier pages")))
	default:
		lines = append(lines, fmt.Sprintf("it survives the loss of any %d of its %s, manifest included; its manifest is on %s",
			o.Survives, count(o.Carriers, "carrier page", "carrier pages"), count(o.ManifestPages, "page", "pages")))
	}
	without := ""
	if requests {
		without = ", from the archives' own crawls alone, without the capture requests"
	}
	var within []string
	for _, c := range o.Within {
		within = append(within, fmt.Sprintf("within %s %s", count(c.Days, "day", "days"), forecast(c.Probability)))
	}
	lines = append(lines,
		"inject does not read the archives: lazarus status says what they hold, lazarus capture asks them to capture it now",
		fmt.Sprintf("capture model's prior for pages no archive holds yet (%s; inject reads no capture history)%s: recoverable %s", strings.Join(o.Archives, " and "), without, strings.Join(within, ", ")))
	return lines
}

// forecast formats a lower bound on a probability: "≥ 17%" in whole
// percents, "< 1%" and "> 99%" at the ends, where the model's prior
// cannot tell more.
func forecast(p float64) string {
	switch {
	case p < 0.01:
		return "< 1%"
	case p > 0.99:
		return "> 99%"
	}
	return fmt.Sprintf("≥ %.0f%%", math.Floor(100*p))
}

// chance formats a probability with the digits that matter near 1:
// 99.9%, 99.93%, 99.9987%, "> 99.999%" rather than a rounded 100%.
func chance(p float64) string {
	digits := 1
	switch {
	case p >= 1:
		return "100%"
	case p >= 0.99999:
		return "> 99.999%"
	case p >= 0.9999:
		digits = 4
	case p >= 0.99:
		digits = 2
	}
	s := strconv.FormatFloat(100*p, 'f', digits, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}

// sitemapLine says where the sitemap inject keeps is announced: in
// robots.txt for a site at its host's root; a site under a path does
// not own its host's robots.txt, so inject leaves that to the user.
func sitemapLine(sitemap string) string {
	u, err := url.Parse(sitemap)
	if err == nil && u.Path == "/sitemap.xml" {
		return printable(sitemap) + ", named in robots.txt for crawlers that start from sitemaps"
	}
	return printable(sitemap) + "; the site is not at its host's root, whose robots.txt is not the site's: add \"Sitemap: " +
		printable(sitemap) + "\" to it for crawlers that start from sitemaps to find it"
}
