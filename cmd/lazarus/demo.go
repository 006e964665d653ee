package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/lazarus-preserve/lazarus/internal/demo"
)

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lazarus demo", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus demo [--keep DIR]\n\n"+
			"Plays the whole life of a site on this machine: a sample site and server side, keys,\n"+
			"a generation, the site served by Caddy with the Lazarus module, a crawl into a WARC,\n"+
			"the loss of the site, and the recovery of every server file from the WARC alone.\n\n"+
			"Examples:\n"+
			"  lazarus demo                  # everything in a temporary directory, removed at the end\n"+
			"  lazarus demo --keep demo-run  # keep the keys, the WARC and the recovered files\n\nFlags:\n")
		fs.PrintDefaults()
	}
	keep := fs.String("keep", "", "keep everything (keys, WARC, recovered files) in `DIR`")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintln(stdout, "Lazarus demo: a website's server side, preserved by the pages an archive keeps.")
	if err := demo.Run(ctx, demo.Options{Keep: *keep, Out: stdout, Serve: serveWithCaddy}); err != nil {
		errorf(stderr, "demo: %v", err)
		if *keep != "" {
			hintf(stderr, "--keep needs an empty or new directory")
		}
		return exitError
	}
	if *keep == "" {
		fmt.Fprintln(stdout, "Run with --keep DIR to keep the keys, the WARC and the recovered files.")
	}
	return exitOK
}
