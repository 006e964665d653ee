package main

import (
	"fmt"
	"io"

	"github.com/lazarus-preserve/lazarus/injector"
)

// printInject prints a run's result for people.
func printInject(w io.Writer, r *injector.Result, stateDir string) {
	verb := "unchanged"
	switch {
	case r.New && r.Previous != "":
		verb = "new, replaces " + r.Previous
	case r.New:
		verb = "new"
	}
	if r.DryRun {
		fmt.Fprint(w, "dry run: nothing written\n")
	}
	fmt.Fprintf(w, "generation %s (%s)\n", r.Generation, verb)
	for _, s := range r.Segments {
		state := "unchanged"
		if s.Changed {
			state = "changed"
		}
		what := fmt.Sprintf("%6d entries %10s →", s.Files, formatSize(s.TarBytes))
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
	fmt.Fprintf(w, "  %d carrier pages, %d blocks placed, manifest on %d pages, at most %s added to a page\n", r.Carriers, blocks, manifests, formatSize(int64(most)))
	fmt.Fprintf(w, "  %d files written; %d pages cannot carry blocks (see --json)\n", r.Written, len(r.Excluded))
	for _, wmsg := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", wmsg)
	}
	fmt.Fprintf(w, "  state: %s\n", stateDir)
}
