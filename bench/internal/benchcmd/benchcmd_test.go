package benchcmd

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestRunExitCodes: help, bad flags, arguments, a failed check, failed
// work and work stopped by SIGINT and SIGTERM each have their exit code
// and say why on stderr; the work runs only when the flags are good.
func TestRunExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check error
		work  func(ctx context.Context) error
		code  int
		say   string
	}{
		{"done", nil, nil, nil, ExitOK, ""},
		{"help", []string{"--help"}, nil, nil, ExitOK, "-n"},
		{"unknown flag", []string{"--bogus"}, nil, nil, ExitUsage, "bogus"},
		{"argument", []string{"extra"}, nil, nil, ExitUsage, `unexpected argument "extra"`},
		{"check", nil, errors.New("-n takes 1 to 9"), nil, ExitUsage, "demo: error: -n takes 1 to 9"},
		{"work fails", nil, nil, func(context.Context) error { return errors.New("no disk") }, ExitFailed, "demo: error: no disk"},
		{"interrupted", nil, nil, stopBy(syscall.SIGINT), ExitInterrupt, "demo: stopped by interrupt"},
		{"terminated", nil, nil, stopBy(syscall.SIGTERM), ExitTerminated, "demo: stopped by terminated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("demo", flag.ContinueOnError)
			var errs bytes.Buffer
			fs.SetOutput(&errs)
			fs.Int("n", 1, "how many")
			ran := false
			work := func(ctx context.Context) error {
				ran = true
				if tc.work != nil {
					return tc.work(ctx)
				}
				return nil
			}
			code := Run(fs, tc.args, &errs, func() error { return tc.check }, work)
			if code != tc.code || !strings.Contains(errs.String(), tc.say) {
				t.Errorf("exit %d, stderr %q; want %d, saying %q", code, errs.String(), tc.code, tc.say)
			}
			if ran != (tc.code != ExitUsage && tc.name != "help") {
				t.Errorf("work ran: %v", ran)
			}
		})
	}
}

// stopBy is work that sends the process sig and returns when its
// context is cancelled.
func stopBy(sig syscall.Signal) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			return err
		}
		<-ctx.Done()
		return ctx.Err()
	}
}
