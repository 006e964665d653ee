// Command lazarus preserves a website's server side inside the pages web
// archives keep, and rebuilds it from them after the site is lost.
//
// Usage:
//
//	lazarus keygen -o DIR        create owner.key (offline) and server.key (server)
//	lazarus inject [flags]       preserve the server side inside the site's pages
//	lazarus recover [flags]      rebuild the server side from archived pages
//	lazarus verify [flags]       check the live site as an archive crawler sees it
//	lazarus status [flags]       what the archives hold: restore point and outlook
//	lazarus demo [--keep DIR]    the whole story, locally, in one command
//	lazarus version              print the version and format versions (also --version)
//	lazarus help COMMAND         a command's flags and examples (also COMMAND -h)
//
// Help that is asked for goes to stdout; usage errors go to stderr.
// Exit codes: 0 success, 1 error, 2 usage error, 3 partial result;
// inject, recover and demo exit 130 when Ctrl-C (SIGINT) and 143 when
// SIGTERM stopped them.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes, documented in the README (and exitInterrupted,
// exitTerminated in signal.go).
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitPartial = 3
)

// command is one subcommand: its name, a one-line summary and its run
// function, which returns an exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"keygen", "create owner.key (keep offline) and server.key (for the server)", runKeygen},
		{"inject", "preserve the server side inside a site's pages (deploy hooks, cron, CI)", runInject},
		{"recover", "rebuild the server side from archived copies of the pages", runRecover},
		{"verify", "check the live site as archive crawlers see it: can the newest generation be rebuilt?", runVerify},
		{"status", "what the web archives hold of the site: restore point, blocks per stripe, outlook", runStatus},
		{"capture", "ask the Internet Archive to capture the pages that make the newest generation safe", runCapture},
		{"demo", "the whole story on this machine: inject, serve with Caddy, crawl, lose, recover", runDemo},
		{"version", "print the program and format versions", runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stderr)
		return exitUsage
	case args[0] == "help" && len(args) > 1:
		return help(args[1:], stdout, stderr)
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		usage(stdout)
		return exitOK
	case args[0] == "-version" || args[0] == "--version":
		return runVersion(args[1:], stdout, stderr)
	}
	if c, ok := findCommand(args[0]); ok {
		return c.run(args[1:], stdout, stderr)
	}
	errorf(stderr, "unknown command %q", args[0])
	usage(stderr)
	return exitUsage
}

// help prints a command's own help on stdout, as "lazarus CMD -h" does.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		errorf(stderr, "help takes one command name, not %q", strings.Join(args, " "))
		usage(stderr)
		return exitUsage
	}
	if args[0] == "help" {
		usage(stdout)
		return exitOK
	}
	c, ok := findCommand(args[0])
	if !ok {
		errorf(stderr, "unknown command %q", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run([]string{"-h"}, stdout, stderr)
}

func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: lazarus COMMAND [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'lazarus help COMMAND' (or 'lazarus COMMAND -h') for a command's flags and examples.")
	fmt.Fprintln(w, "'lazarus --version' is 'lazarus version'.")
	fmt.Fprintln(w, "Exit codes: 0 success, 1 error, 2 usage error, 3 partial result,")
	fmt.Fprintln(w, "130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM.")
}

func errorf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "lazarus: error: "+format+"\n", args...)
}

func hintf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "lazarus: hint: "+format+"\n", args...)
}

// parseFlags parses a subcommand's flags. Help asked for with -h, -help
// or --help goes to stdout and succeeds; any other problem (including
// stray arguments) is a usage error, explained on stderr in the CLI's
// error and hint lines (flagError), without the flag package's usage.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		io.Copy(stdout, &out)
		return exitOK, false
	}
	if err != nil {
		flagError(stderr, fs, err)
		return exitUsage, false
	}
	io.Copy(stderr, &out)
	if fs.NArg() > 0 {
		errorf(stderr, "unexpected argument %q", fs.Arg(0))
		return exitUsage, false
	}
	return exitOK, true
}
