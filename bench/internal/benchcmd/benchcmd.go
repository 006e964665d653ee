// Package benchcmd is what the commands under bench/ share around their
// work: flags parsed and usage errors answered alike, a context that
// Ctrl-C or SIGTERM cancels (so a command stops and removes its
// temporary files instead of dying with them), the exit codes, and JSON
// written alike.
package benchcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// The exit codes of the bench commands.
const (
	ExitOK         = 0   // done (read the output)
	ExitFailed     = 1   // the work failed
	ExitUsage      = 2   // bad flags or arguments
	ExitInterrupt  = 130 // stopped by Ctrl-C (SIGINT)
	ExitTerminated = 143 // stopped by SIGTERM
)

// Run parses args with fs (its flags defined, its output set to where
// usage should go), checks them with check (nil: nothing to check; an
// error is a usage error), refuses arguments that are not flags, then
// runs work with a context that SIGINT or SIGTERM cancels. It returns the
// exit code: ExitOK when work returns nil or --help was asked,
// ExitUsage, ExitFailed, or ExitInterrupt or ExitTerminated when a
// signal stopped the work. Errors go to stderr as "NAME: error: …",
// NAME being fs.Name().
func Run(fs *flag.FlagSet, args []string, stderr io.Writer, check func() error, work func(ctx context.Context) error) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage // fs printed the error and its usage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: error: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return ExitUsage
	}
	if check != nil {
		if err := check(); err != nil {
			fmt.Fprintf(stderr, "%s: error: %v\n", fs.Name(), err)
			return ExitUsage
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalError{sig})
		case <-ctx.Done():
		}
	}()
	err := work(ctx)
	var sig signalError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(context.Cause(ctx), &sig):
		fmt.Fprintf(stderr, "%s: stopped by %v\n", fs.Name(), sig.sig)
		if sig.sig == syscall.SIGTERM {
			return ExitTerminated
		}
		return ExitInterrupt
	}
	fmt.Fprintf(stderr, "%s: error: %v\n", fs.Name(), err)
	return ExitFailed
}

// signalError is the cause of a context cancelled by a signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return "stopped by " + e.sig.String() }

// WriteJSON writes v to w as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
