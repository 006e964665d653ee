// Command sim runs the seeded placement simulator (package
// internal/sim): a site whose server side changes, an archive that
// captures its pages at their own rates and in sweeps, and four ways to
// place each generation's blocks at equal bytes, with capture requests off
// and on and with both rotations. It prints a table (or JSON with --json)
// and how long the run took.
//
//	go run ./bench/sim [--json] [--pages 200] [--runs 200] [--days 180] [--backup 2MiB] [--seed 1] ...
//
// Exit codes: 0 done, 1 error, 2 usage, 130 interrupted (SIGINT), 143
// terminated (SIGTERM).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/bench/internal/benchcmd"
	"github.com/lazarus-preserve/lazarus/internal/sim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the simulation and prints its report; it returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cfg := sim.DefaultConfig()
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.IntVar(&cfg.Pages, "pages", cfg.Pages, "pages of the simulated site")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	fs.Float64Var(&cfg.Days, "days", cfg.Days, "days during which generations are made")
	fs.Var(sizeFlag{&cfg.Backup}, "backup", "ciphertext size of the server side (e.g. 2MiB, 512KiB)")
	fs.IntVar(&cfg.Runs, "runs", cfg.Runs, "simulated sites")
	fs.Float64Var(&cfg.ChangeEvery, "change-every", cfg.ChangeEvery, "days between server-side changes (new generations)")
	fs.Float64Var(&cfg.MaxAge, "max-age", cfg.MaxAge, "make-before-break age limit in days (0: none)")
	fs.Float64Var(&cfg.History, "history", cfg.History, "days of capture history before the first generation")
	fs.Float64Var(&cfg.Skew, "skew", cfg.Skew, "σ of the log-normal spread of page capture intervals")
	fs.Float64Var(&cfg.SweepEvery, "sweep-every", cfg.SweepEvery, "mean days between whole-site sweeps")
	fs.Float64Var(&cfg.SweepShare, "sweep-share", cfg.SweepShare, "share of captures made by sweeps")
	fs.Float64Var(&cfg.RequestSuccess, "request-success", cfg.RequestSuccess, "probability that a capture request succeeds")
	fs.IntVar(&cfg.RequestAttempts, "request-attempts", cfg.RequestAttempts, "requests for a page while they fail, 10 minutes apart and doubling")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "runs simulated at once (0: one per CPU)")
	return benchcmd.Run(fs, args, stderr, cfg.Validate, func(ctx context.Context) error {
		start := time.Now()
		rep, err := sim.Run(ctx, cfg)
		if err != nil {
			return err
		}
		elapsed := time.Since(start)
		if *asJSON {
			return benchcmd.WriteJSON(stdout, struct {
				*sim.Report
				Seconds float64 `json:"seconds"`
			}{rep, elapsed.Seconds()})
		}
		if err := rep.WriteText(stdout); err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "\n%d runs in %.1f s\n", cfg.Runs, elapsed.Seconds())
		return err
	})
}

// sizeFlag is a byte count given as 2097152, 512KiB, 2MiB, 512K or 2M.
type sizeFlag struct{ n *int64 }

func (s sizeFlag) String() string {
	if s.n == nil {
		return ""
	}
	return strconv.FormatInt(*s.n, 10)
}

func (s sizeFlag) Set(v string) error {
	t, mult := strings.TrimSpace(v), int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > sim.MaxBackup/mult {
		return fmt.Errorf("invalid size %q (use e.g. 2MiB or 512KiB, at most 1 GiB)", v)
	}
	*s.n = n * mult
	return nil
}
