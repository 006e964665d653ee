// Command backtest checks status's forecasts against worlds built apart
// from the capture model (package internal/odds is not used to make
// them): a static site of about 40 linked pages whose server side (an
// application tree and a 1 MB database dump) the real injector
// publishes in three generations over 100 days, archives that capture it
// as crawlers and people do (the Wayback Machine's irregular
// breadth-first crawls with depth limits, page budgets, politeness
// delays and failed fetches, Save Page Now bursts on popular pages,
// Common Crawl's budgeted monthly crawls published weeks later and cut
// at its truncation limit, a national library's frequent shallow and
// annual deep crawls), each figure from the published measurements
// (kinds.go), served by loopback archives speaking the real protocols
// (Wayback CDX and replay, Common Crawl's index and WARC ranges, pywb).
// At day 150 it runs the real status (as of that day, with inject's
// serve history) on what the archives list then and takes its
// probability that the newest generation is recoverable within 7 and
// 30 days; then it runs the real recover on what the archives list 7
// and 30 days later and checks that the newest generation's files come
// back byte for byte. In a world of two archives it also runs recover
// reading each archive alone, at day 150 (against status's held_by) and
// at each horizon (against status's per-archive chances and its
// two_archives); and in every world it runs recover 1, 7 and 30 days
// after the newest generation's inject, against the outlook inject
// printed then (the model's prior). It prints, per world kind and over
// all worlds, a calibration table per horizon (forecasts in bins against
// the realised frequency, with counts and standard errors), the Brier
// score and the mean forecast against the realised share, the same for
// two_archives, each archive alone and inject's outlook, and what status
// saw against what the archives did.
//
//	go run ./bench/backtest [--worlds 10] [--seed 1] [--workers 2] [--json]
//	go run ./bench/backtest --requests-success 0.5 [--request-attempts 3] [...]
//
// With --requests-success the backtest measures capture requests
// instead (runRequestsWorld): the same worlds, each generation planned
// by the real injector for the requests lazarus capture makes after it
// (each taken with that probability, a page asked up to
// --request-attempts times), the requests replayed into the world's
// Wayback Machine (requests.go), make-before-break kept as inject keeps
// it by capture's nightly audits; per kind and over all it prints the
// share of generations the real recover restores byte for byte from
// what the archives list a day after their publication, the time until
// it first does (median, 95th percentile), and the bytes the pages
// carry over the ciphertext.
//
// --worlds is per kind. A bin is flagged when it has 5 worlds or more
// and predicts more than 0.05 above what came true, and marked
// over-confident when it does so by more than two standard errors too.
// Exit codes: 0 done (read the tables), 1 error, 2 usage, 130 and 143
// stopped by Ctrl-C (SIGINT) or SIGTERM (the worlds' files removed).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/bench/internal/benchcmd"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, runs the backtest and prints its tables; it returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("backtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	worlds := fs.Int("worlds", 10, "worlds per kind, 1 to 10000")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	workers := fs.Int("workers", min(2, runtime.NumCPU()), "worlds run at once, 1 to 64")
	asJSON := fs.Bool("json", false, "print JSON (tables and every world) instead of tables")
	var q requestPlan
	fs.Float64Var(&q.Success, "requests-success", 0, "the requests mode: each capture request taken with this probability, in (0, 1]; 0: off")
	fs.IntVar(&q.Attempts, "request-attempts", 3, "the requests mode: a page asked for up to this many times, 1 to 10")
	check := func() error {
		if *worlds < 1 || *worlds > 10000 || *workers < 1 || *workers > 64 {
			return errors.New("--worlds takes 1 to 10000, --workers 1 to 64")
		}
		if !(q.Success >= 0 && q.Success <= 1) || q.Attempts < 1 || q.Attempts > 10 {
			return errors.New("--requests-success takes 0 to 1, --request-attempts 1 to 10")
		}
		return nil
	}
	return benchcmd.Run(fs, args, stderr, check, func(ctx context.Context) error {
		start := time.Now()
		if q.Success > 0 {
			ws, err := backtest(ctx, *worlds, *seed, *workers, func(ctx context.Context, k kind, ki, i int, e worldEnv) (requestsResult, error) {
				return runRequestsWorld(ctx, k, ki, i, q, e)
			})
			if err != nil {
				return err
			}
			rep := requestsReport{Requests: q, Seed: *seed, Worlds: ws, Seconds: time.Since(start).Seconds()}
			rep.tally()
			if *asJSON {
				return benchcmd.WriteJSON(stdout, rep)
			}
			rep.print(stdout)
			return nil
		}
		rs, err := backtest(ctx, *worlds, *seed, *workers, func(ctx context.Context, k kind, ki, i int, e worldEnv) (result, error) {
			return runWorld(ctx, k, ki, i, e.seed, e.keys, e.tmp, e.client)
		})
		if err != nil {
			return err
		}
		rep := report{Worlds: rs, Seconds: time.Since(start).Seconds()}
		rep.tally()
		if *asJSON {
			return benchcmd.WriteJSON(stdout, rep)
		}
		rep.print(stdout)
		return nil
	})
}

// worldEnv is what every world of a run shares.
type worldEnv struct {
	seed   uint64
	keys   keyPair
	tmp    string
	client source.Doer
}

// backtest runs n worlds of every kind, workers at once, with run, and
// returns their results by kind, then world.
func backtest[R any](ctx context.Context, n int, seed uint64, workers int, run func(ctx context.Context, k kind, ki, i int, e worldEnv) (R, error)) ([]R, error) {
	owner, server, err := keys.Generate(false)
	if err != nil {
		return nil, err
	}
	e := worldEnv{seed: seed, keys: keyPair{Owner: owner.Marshal(), Server: server.Marshal()}}
	if e.tmp, err = os.MkdirTemp("", "lazarus-backtest-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(e.tmp)
	// Loopback archives: no politeness needed, and none waited for.
	e.client = source.NewClient(source.ClientOptions{Rate: 600_000})
	type job struct{ k, i int }
	jobs := make(chan job)
	out := make([]R, len(kinds)*n)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r, err := run(ctx, kinds[j.k], j.k, j.i, e)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("%s, world %d: %w", kinds[j.k].Name, j.i, err)
						cancel()
					}
					mu.Unlock()
					continue
				}
				out[j.k*n+j.i] = r
			}
		}()
	}
feed:
	for k := range kinds {
		for i := range n {
			select {
			case jobs <- job{k, i}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	return out, first
}
