package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// statusGenerationsShown bounds the generations the text summary lists.
const statusGenerationsShown = 5

// printStatus writes the human summary of a status report.
func printStatus(w io.Writer, r *status.Report) {
	fmt.Fprintf(w, "Site %s, archives as of %s\n", printable(r.Site), r.Now.Format(time.RFC3339))
	for _, s := range r.Sources {
		printStatusSource(w, s)
	}
	if r.Cause != nil && r.Cause.Kind == status.CauseSourcesFailed {
		// Nothing was read: no generation, outlook or note says anything.
		fmt.Fprintln(w, "Restore point: none, and not for what the archives hold: "+printable(r.Cause.Message))
		return
	}
	if r.Live != "" {
		fmt.Fprintf(w, "Live site: serves generation %s, newer than anything archived\n", r.Live)
	}
	if rp := r.RestorePoint; rp != nil {
		which := "the newest"
		if r.NewestUnconfirmed {
			which = "the newest archived (the live site was not read: a newer one may exist)"
		}
		if !rp.Newest {
			which = "NOT the newest (" + r.Newest + ")"
		}
		fmt.Fprintf(w, "Restore point: generation %s of %s, %s old, %s\n", rp.Generation, rp.Time.Format(time.RFC3339), humane.Duration(rp.Age), which)
	} else if r.Cause != nil {
		fmt.Fprintln(w, "Restore point: none, and not for what the archives hold: "+printable(r.Cause.Message))
	} else {
		fmt.Fprintln(w, "Restore point: none; no generation is recoverable from the archives "+nowOrAsOf(r))
	}
	for i, g := range r.Generations {
		if i == statusGenerationsShown {
			fmt.Fprintf(w, "… and %s (see --json)\n", humane.Count(len(r.Generations)-i, "older generation"))
			break
		}
		printGeneration(w, g)
	}
	printAssessment(w, r.Assessment)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "Note: "+printable(n))
	}
	const most = 5
	for i, p := range r.Problems {
		if i == most {
			break
		}
		fmt.Fprintln(w, "  problem: "+printable(p))
	}
	if more := len(r.Problems) - min(most, len(r.Problems)) + r.ProblemsOmitted; more > 0 {
		fmt.Fprintf(w, "  … %s (see --json)\n", humane.Count(more, "more problem"))
	}
}

// printStatusSource writes one source's line: what was listed, known,
// fetched and checked.
func printStatusSource(w io.Writer, s status.SourceReport) {
	line := fmt.Sprintf("  %-14s %s: %d known from the history, %d from the cache, %d fetched", printable(s.Name), humane.Count(s.Captures, "capture"), s.Known, s.Cached, s.Fetched)
	if s.SpotChecked > 0 {
		line += fmt.Sprintf(", %d spot-checked", s.SpotChecked)
	}
	if s.Failed > 0 {
		line += fmt.Sprintf(", %d failed", s.Failed)
	}
	if s.Unfetched > 0 {
		line += fmt.Sprintf(", %d left unfetched (--max-fetches)", s.Unfetched)
	}
	if s.Distrusted {
		line += "; a spot check FAILED: its listed digests were not trusted"
	}
	if s.Error != "" {
		line += " (" + printable(s.Error) + ")"
	}
	fmt.Fprintln(w, line)
}

// printGeneration writes one generation's segments: complete stripes and
// the weakest stripe per segment.
func printGeneration(w io.Writer, g status.Generation) {
	state := "recoverable"
	switch {
	case g.Recoverable:
	case g.SegmentsRebuildable && !g.ManifestArchived:
		state = "segments rebuildable, but its manifest is in no archived capture: lazarus recover restores the segments (exit 3), without the generation's listing check"
	default:
		state = "NOT recoverable"
	}
	fmt.Fprintf(w, "Generation %s of %s: %s%s\n", g.ID, g.Time.Format(time.RFC3339), state, heldByString(g.HeldBy))
	for _, s := range g.Segments {
		kind := ""
		if s.Listing {
			kind = " (listing)"
		}
		weak := weakestStripe(s)
		fmt.Fprintf(w, "  segment %-12s %d/%s with k=%s; weakest stripe %d: %d (%d needed)%s%s\n",
			printable(s.Name), s.Complete, humane.Count(s.Stripes, "stripe"), humane.Count(s.K, "block"), weak.Index, weak.Combined, weak.Need, haveList(weak.Have), kind)
	}
	short := g.Short
	if g.SegmentsRebuildable && !g.ManifestArchived && len(short) > 0 {
		short = short[:len(short)-1] // the manifest's entry, said on the generation's line
	}
	for _, why := range short {
		fmt.Fprintln(w, "  short: "+printable(why))
	}
}

// heldByString is "; confirmed in wayback (since …) and commoncrawl
// (since …)": the archives holding a generation each on its own; "" for
// none.
func heldByString(h []status.SourceHold) string {
	if len(h) == 0 {
		return ""
	}
	var parts []string
	for _, s := range h {
		parts = append(parts, fmt.Sprintf("%s (since %s)", printable(s.Source), s.Since.Format(time.RFC3339)))
	}
	return "; confirmed in " + strings.Join(parts, " and ")
}

// weakestStripe is the stripe with the fewest blocks combined.
func weakestStripe(s status.Segment) status.Stripe {
	var weak status.Stripe
	for i, st := range s.PerStripe {
		if i == 0 || st.Combined < weak.Combined {
			weak = st
		}
	}
	return weak
}

// haveList is ": wayback 3, commoncrawl 2", sources by name; "" when
// one source holds them all (its count is the combined one).
func haveList(have map[string]int) string {
	if len(have) < 2 {
		return ""
	}
	var parts []string
	for name, n := range have {
		parts = append(parts, fmt.Sprintf("%s %d", printable(name), n))
	}
	sort.Strings(parts)
	return ": " + strings.Join(parts, ", ")
}

// printAssessment writes P_rec of the newest generation in both views.
func printAssessment(w io.Writer, a *status.Assessment) {
	if a == nil {
		return
	}
	if a.Reason == status.AssessCarriersUnknown {
		fmt.Fprintf(w, "Outlook unavailable: %s\n", printable(a.Error))
		return
	}
	if a.Error != "" {
		fmt.Fprintf(w, "Outlook of generation %s: the model could not run: %s\n", a.Generation, printable(a.Error))
		return
	}
	depth := ""
	if unknown := a.Pages - a.DepthKnown; unknown > 0 {
		depth = fmt.Sprintf("; link depth unknown for %d, modelled at the deepest level", unknown)
	}
	known := fmt.Sprintf("any %d of its carriers may go uncaptured", a.Survives)
	switch {
	case a.Survives < 0:
		known = "its carriers cannot rebuild it even if all are captured"
	case a.Survives >= a.Carriers:
		known = "the archives hold enough of it already"
	}
	fmt.Fprintf(w, "Outlook of generation %s (%s, %s%s; %s): probability the archives hold enough of it\n", a.Generation,
		humane.Count(a.Pages, "page"), humane.Count(a.Carriers, "carrier"), depth, known)
	for _, v := range a.Views {
		label := viewLabels[v.Name]
		if label == "" {
			label = v.Name
		}
		var at []string
		for _, p := range v.At {
			if shownAfter(p.After, v.At) {
				at = append(at, fmt.Sprintf("%s %.1f%%", afterString(p.After), 100*p.P))
			}
		}
		reach := fmt.Sprintf("does not reach %s within %s", percent(a.Target), humane.Duration(status.ReachHorizon))
		if v.Reached {
			reach = fmt.Sprintf("reaches %s %s", percent(a.Target), reachString(v.ReachIn))
		}
		fmt.Fprintf(w, "  %-34s %s; %s\n", label+":", strings.Join(at, ", "), reach)
	}
	if len(a.TwoArchives) > 0 {
		var at []string
		for _, p := range a.TwoArchives {
			if shownAfter(p.After, a.TwoArchives) {
				at = append(at, fmt.Sprintf("%s %.1f%%", afterString(p.After), 100*p.P))
			}
		}
		fmt.Fprintf(w, "  %-34s %s\n", "from at least two archives:", strings.Join(at, ", "))
	}
	switch {
	case len(a.Fixed) > 0 && len(a.Archives) == 0:
		fmt.Fprintf(w, "  only files were read (%s): they capture nothing more, so the figures are what they hold\n", strings.Join(a.Fixed, ", "))
	case len(a.Fixed) > 0:
		fmt.Fprintf(w, "  files (%s) count as they are; future captures are forecast for %s\n", strings.Join(a.Fixed, ", "), strings.Join(a.Archives, ", "))
	}
}

// viewLabels name the model's views in the text output.
var viewLabels = map[string]string{status.ModelViewName: "capture model (lower bound)"}

// nowOrAsOf is "now", or "as of TIME" for an audit as of a given time
// (--as-of).
func nowOrAsOf(r *status.Report) string {
	if r.AsOf {
		return "as of " + r.Now.Format(time.RFC3339)
	}
	return "now"
}

// asOf is " as of TIME" for an audit as of a given time, else "".
func asOf(r *status.Report) string {
	if r.AsOf {
		return " " + nowOrAsOf(r)
	}
	return ""
}

func percent(p float64) string { return fmt.Sprintf("%g%%", 100*p) }

// statusShownAfter are the model times the text shows (of
// status.ModelTimes, which the HTML chart shows all of).
var statusShownAfter = []time.Duration{0, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// shownAfter reports whether the text shows P_rec at d: one of
// statusShownAfter, or any time when the model was asked for none of
// them.
func shownAfter(d time.Duration, at []status.Probability) bool {
	given := false
	for _, p := range at {
		given = given || slices.Contains(statusShownAfter, p.After)
	}
	return !given || slices.Contains(statusShownAfter, d)
}

// afterString is "now" or "+7d".
func afterString(d time.Duration) string {
	if d == 0 {
		return "now"
	}
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("+%dd", d/(24*time.Hour))
	}
	return "+" + d.String()
}

// reachString is "now" or "by 3 days" (the model looks at set times, so
// the target is reached at the latest then).
func reachString(d time.Duration) string {
	if d <= 0 {
		return "now"
	}
	return "by " + humane.Duration(d)
}
