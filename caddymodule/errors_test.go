package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/injector"
)

// cliFlag matches a command-line flag such as --page-budget.
var cliFlag = regexp.MustCompile(`--[a-z][a-z-]+`)

// checkOptionWords fails unless msg names each of the Caddyfile options
// and no command-line flag.
func checkOptionWords(t *testing.T, msg string, options ...string) {
	t.Helper()
	t.Logf("error: %s", msg)
	if f := cliFlag.FindString(msg); f != "" {
		t.Errorf("the module's error names the command-line flag %s: %s", f, msg)
	}
	for _, o := range options {
		if !regexp.MustCompile(`\b` + o + `\b`).MatchString(msg) {
			t.Errorf("the module's error does not name the Caddyfile option %s: %s", o, msg)
		}
	}
}

// TestOptionErrorsInCaddyfileWords: options the injector refuses fail
// Provision with the Caddyfile option names, never the CLI's flags.
func TestOptionErrorsInCaddyfileWords(t *testing.T) {
	f := newBuildFixture(t)
	tests := []struct {
		name    string
		edit    func(*Handler)
		options []string
	}{
		{"page budget too small", func(h *Handler) { h.PageBudget = 1000 }, []string{"page_budget"}},
		{"block size too small", func(h *Handler) { h.Build.MaxBlockBytes = 512 }, []string{"max_block_bytes"}},
		{"two at once", func(h *Handler) { h.PageBudget, h.Build.MaxBlockBytes = 1000, 32<<20 }, []string{"page_budget", "max_block_bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := f.build
			h := &Handler{Build: &b, Name: "site", storage: &certmagic.FileStorage{Path: f.storage}}
			tt.edit(h)
			err := h.setup()
			if err == nil {
				t.Fatal("no error")
			}
			checkOptionWords(t, err.Error(), tt.options...)
		})
	}
}

// TestBuildErrorsInCaddyfileWords: a build the pages cannot take (here:
// stripes at redundancy 10 need 11 distinct pages, the code is planned for
// fewer) fails (logged, retried) with a hint naming the Caddyfile options
// that help.
func TestBuildErrorsInCaddyfileWords(t *testing.T) {
	f := newBuildFixture(t)
	b := f.build
	b.Carriers, b.Redundancy = 2, 10
	now := genTime
	h := &Handler{Build: &b, Name: "site", storage: &certmagic.FileStorage{Path: f.storage}, now: func() time.Time { return now }}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	res, err := h.builder.build(context.Background())
	if err == nil {
		t.Fatalf("redundancy 10 on 2 planned pages: build %q, want an error", res)
	}
	if !errors.Is(err, injector.ErrTooFewPages) {
		t.Errorf("the error no longer wraps injector.ErrTooFewPages: %v", err)
	}
	checkOptionWords(t, err.Error(), "carriers", "redundancy")
}

// TestBudgetHintInCaddyfileWords: a budget error (rare when building: the
// planned pages grow with the backup) gets the changes its message lists
// in neutral words as Caddyfile options, and still unwraps to it.
func TestBudgetHintInCaddyfileWords(t *testing.T) {
	tests := []struct {
		name    string
		err     *injector.BudgetError
		options []string
		want    string
	}{
		{"manifest", &injector.BudgetError{Pages: 4, Blocks: 1, BlockBytes: 90000, RoomBytes: 70000, NeedBytes: 90000, MaxBlockBytes: 49152},
			[]string{"page_budget"}, "raise page_budget"},
		{"segment, smaller blocks fit", &injector.BudgetError{Segment: "app", Pages: 4, Blocks: 300, BlockBytes: 66000, RoomBlocks: 12,
			NeedBytes: 900 << 10, RoomBytes: 1 << 20, MaxBlockBytes: 64 << 10, SuggestedMaxBlockBytes: 32 << 10},
			[]string{"max_block_bytes", "carriers", "exclude"}, "set max_block_bytes 32KiB, raise carriers or exclude files from segment \"app\""},
		{"segment, nothing fits", &injector.BudgetError{Segment: "db", Pages: 2, Blocks: 300, BlockBytes: 2000, RoomBlocks: 100,
			NeedBytes: 600000, RoomBytes: 200000, MaxBlockBytes: 1024},
			[]string{"page_budget", "carriers", "redundancy"}, "raise page_budget, raise carriers, lower redundancy or exclude files"},
		{"fixed segment", &injector.BudgetError{Segment: "db", Fixed: true, Pages: 2, Blocks: 300, BlockBytes: 2000, RoomBlocks: 100,
			NeedBytes: 600000, RoomBytes: 200000, MaxBlockBytes: 1024},
			[]string{"page_budget", "carriers"}, "raise page_budget or raise carriers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := inOptionWords(fmt.Errorf("planning: %w", tt.err))
			checkOptionWords(t, err.Error(), tt.options...)
			if !strings.HasPrefix(err.Error(), "planning: "+tt.err.Error()) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want the injector's message and %q", err, tt.want)
			}
			var be *injector.BudgetError
			if !errors.As(err, &be) || be != tt.err {
				t.Error("the restated error does not unwrap to the BudgetError")
			}
		})
	}
}

// TestOtherErrorsUnchanged: errors that name no option pass through.
func TestOtherErrorsUnchanged(t *testing.T) {
	err := fmt.Errorf("%w: db (\"false\"): exit status 1", injector.ErrDump)
	if got := inOptionWords(err); got != err {
		t.Fatalf("got %v, want the error itself", got)
	}
}
