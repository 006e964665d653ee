// Command calibrate backtests the capture model (package internal/odds)
// against worlds whose truth is known: for each world kind it draws sites
// whose archives capture them in the kind's way, lets the archives build a
// history, fits the model to what they hold (as status does), plans a
// generation with the real planner (inject's defaults), asks the model for
// the probability that the generation is recoverable within 7 and 30 days,
// then draws what the archives really capture in those days and checks
// every stripe and the manifest. It prints, per world kind and horizon, a
// calibration table (predicted probability in bins against the realised
// frequency, with counts), the Brier score, and the same for the figure
// the planner's figure, which inject printed before the model (each page
// kept independently with probability 1/2).
//
//	go run ./bench/calibrate [--worlds 2000] [--seed 1] [--json] [--truth]
//
// A bin is over-confident when its mean prediction exceeds its realised
// frequency by more than 0.05 and by more than two standard errors of that
// frequency (small bins miss by 0.05 by chance alone; --truth, which
// predicts with the worlds' true models, shows how often); the goal is
// none among bins of 5 worlds or more, in every kind. Exit codes: 0 done (goal met or not: read the
// table), 1 error, 2 usage, 130 and 143 stopped by Ctrl-C (SIGINT) or
// SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lazarus-preserve/lazarus/bench/internal/benchcmd"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the backtest and prints its tables; it returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	worlds := fs.Int("worlds", 2000, "worlds per kind, 1 to 100000")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	asJSON := fs.Bool("json", false, "print JSON instead of tables")
	fs.BoolVar(&useTruth, "truth", false, "predict with the worlds' true models, not fitted ones (checks the computation alone)")
	check := func() error {
		if *worlds < 1 || *worlds > 100000 {
			return errors.New("--worlds takes 1 to 100000")
		}
		return nil
	}
	return benchcmd.Run(fs, args, stderr, check, func(ctx context.Context) error {
		start := time.Now()
		var results []kindResult
		for i, k := range kinds {
			r, err := backtest(ctx, k, *worlds, *seed+uint64(i)*1_000_003)
			if err != nil {
				return fmt.Errorf("%s: %w", k.name, err)
			}
			results = append(results, r)
		}
		if *asJSON {
			return benchcmd.WriteJSON(stdout, results)
		}
		print(stdout, results)
		fmt.Fprintf(stdout, "\n%d worlds in %s\n", *worlds*len(kinds), time.Since(start).Round(time.Millisecond))
		return nil
	})
}
