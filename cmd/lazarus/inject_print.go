package main

import (
	"fmt"
	"io"

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
	blocks, manifests, most := 0, 0, 0
	for _, p := range r.Pages {
		blocks += p.Blocks
		if p.Manifest {
			manifests++
		}
		most = max(most, p.AddedBytes)
	}
	fmt.Fprintf(w, "  %s, %s placed, manifest on %s, at most %s added to a page\n",
		count(r.Carriers, "carrier page", "carrier pages"), count(blocks, "block", "blocks"), count(manifests, "page", "pages"), formatSize(int64(most)))
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
