package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lazarus-preserve/lazarus/injector"
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
		fmt.Fprintf(w, "  segment %-12s %-9s %s %10s  %d stripe(s) of k=%d+m=%d × %s\n",
			s.Name, state, what, formatSize(s.Ciphertext), s.Stripes, s.K, s.M, formatSize(int64(s.ShardSize)))
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
	fmt.Fprintf(w, "  %s added in all (%s %s); %s\n", formatSize(added), ratio(added, cipher), of, recoverabilityLine(r))
	if n := len(r.Kept); n > 0 {
		var kept []string
		for _, k := range r.Kept {
			note := ""
			if k.Carried < k.Blocks {
				note = ": the pages had no room for the rest"
			}
			kept = append(kept, fmt.Sprintf("%s (%d of %d blocks%s)", k.Generation, k.Carried, k.Blocks, note))
		}
		fmt.Fprintf(w, "  %s kept on the pages beside it: %s\n", count(n, "earlier generation", "earlier generations"), strings.Join(kept, ", "))
	}
	excluded := "every page can carry blocks"
	if n := len(r.Excluded); n > 0 {
		excluded = fmt.Sprintf("%s (see --json)", count(n, "page cannot carry blocks", "pages cannot carry blocks"))
	}
	fmt.Fprintf(w, "  %s written; %s\n", count(r.Written, "file", "files"), excluded)
	for _, wmsg := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", wmsg)
	}
	fmt.Fprintf(w, "  state: %s\n", stateDir)
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

// recoverabilityLine says how likely the archives are to keep enough of
// the generation, under which assumption, against the target.
func recoverabilityLine(r *injector.Report) string {
	model := "if archives keep each page with probability 1/2"
	if r.CaptureRates > 0 {
		model = fmt.Sprintf("with the capture probabilities --status gives for %s", count(r.CaptureRates, "page", "pages"))
	}
	line := fmt.Sprintf("recoverable with probability ≥ %s %s", chance(r.Recoverability), model)
	switch {
	case r.Target > 0 && r.Recoverability < r.Target:
		line += fmt.Sprintf(" — SHORT of the %s target: link more pages from the root page, raise --page-budget or lower --target", chance(r.Target))
	case r.Target > 0:
		line += fmt.Sprintf(" (target %s)", chance(r.Target))
	}
	return line
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
