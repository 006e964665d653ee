package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/lazarus-preserve/lazarus/cmd/lazarus/internal/demo"
)

// demoServer serves the demo's site; tests replace it.
var demoServer demo.Server = serveWithCaddy

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lazarus demo", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: lazarus demo [--keep DIR]\n\n"+
			"Plays the whole life of a site on this machine: a sample site and server side, keys,\n"+
			"a generation, the site served by Caddy with the Lazarus module, a crawl into a WARC,\n"+
			"the loss of the site, and the recovery of every server file from the WARC alone.\n"+
			"Exit codes: 0 every file verified, 1 error, 2 usage error, 130 interrupted by Ctrl-C (SIGINT),\n"+
			"143 stopped by SIGTERM; either way the server is stopped and the temporary directory (keys\n"+
			"included) removed, or with --keep what was made so far kept.\n\n"+
			"Examples:\n"+
			"  lazarus demo                  # everything in a temporary directory, removed at the end\n"+
			"  lazarus demo --keep demo-run  # keep the keys, the WARC and the recovered files\n\nFlags:\n")
		fs.PrintDefaults()
	}
	keep := fs.String("keep", "", "keep everything (keys, WARC, recovered files) in `DIR`")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	sig := notifyInterrupt()
	defer sig.stop()
	fmt.Fprintln(stdout, "Lazarus demo: a website's server side, preserved by the pages an archive keeps.")
	if err := demo.Run(sig.ctx, demo.Options{Keep: *keep, Out: stdout, Serve: demoServer}); err != nil {
		if sig.stopped() {
			left := "its temporary directory, keys included, was removed"
			if *keep != "" {
				left = "what it made so far is kept in " + *keep
			}
			errorf(stderr, "demo interrupted (%v); the server was stopped and %s", context.Cause(sig.ctx), left)
			return sig.code()
		}
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
