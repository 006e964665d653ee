package injector

import (
	"context"
	"errors"
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/optionerr"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Errors callers branch on. Messages state facts in neutral words: a run
// may come from the command line, a configuration file or the Caddy
// module, and each words its hints in its own vocabulary.
var (
	// ErrLocked means another run holds the state directory.
	ErrLocked = errors.New("the state directory is locked by another run")
	// ErrDump means a dump command failed (non-zero exit, signal or
	// timeout); nothing was changed. The error also wraps the command's
	// *exec.ExitError when it exited or was killed, and
	// context.DeadlineExceeded when it ran out of time.
	ErrDump = errors.New("dump command failed")
	// ErrWriteInterrupted means Options.Abort stopped a run while it wrote
	// its outputs: the new state is saved, no temporary file is left, each
	// output file is old or new, and the next run completes them.
	ErrWriteInterrupted = errors.New("stopped while writing the outputs")
	// ErrTooFewPages is wrapped when the site has fewer carrier pages than
	// one stripe needs at the chosen redundancy; nothing was changed.
	ErrTooFewPages = placement.ErrTooFewPages
)

// BudgetError reports that the carrier pages lack room for the manifest
// or for a segment's blocks; nothing was changed. Its fields give the
// numbers (pages, blocks, bytes needed and available, a block size that
// would fit) for a hint in the caller's words.
type BudgetError = placement.BudgetError

// OptionsError lists every problem with the options of a run; nothing
// was done. Each problem is an *OptionError.
type OptionsError = optionerr.List

// OptionError is one problem with the options, stated as a fact: Field is
// the path of the Options field at fault ("PageBudget", "SiteURL",
// "Includes.Segment"…; for a problem involving several fields, the first
// one it names: "SiteDir" when no output is given, "BundleDir" when a
// bundle has no pages to plan for), Msg the fact, without field or flag
// names.
type OptionError = optionerr.Error

// optionErrorf returns an *OptionError for field.
func optionErrorf(field, format string, args ...any) error {
	return optionerr.Errorf(field, format, args...)
}

// interrupted is the error of a run stopped by its context before it
// changed anything; it wraps the context's cause, so errors.Is finds
// context.Canceled or context.DeadlineExceeded.
func interrupted(ctx context.Context) error {
	return fmt.Errorf("stopped before changing anything: %w", context.Cause(ctx))
}

// SitePathError wraps a planning error (ErrTooFewPages, a *BudgetError)
// on a site whose pages are linked at paths outside the site URL's path:
// the likely cause is a site URL naming a path the pages are not served
// under, not too few pages.
type SitePathError struct {
	Pages   int    // pages linked only outside Path
	Path    string // the site URL's path, ending in "/"
	Example string // one such link's path
	Err     error
}

// Error states the planning error and the pages outside the site URL's
// path.
func (e *SitePathError) Error() string {
	if e.Pages == 1 {
		return fmt.Sprintf("%v; 1 page is linked at a path outside the site URL's path %s, %s", e.Err, e.Path, e.Example)
	}
	return fmt.Sprintf("%v; %d pages are linked at paths outside the site URL's path %s, such as %s", e.Err, e.Pages, e.Path, e.Example)
}

// Unwrap returns the planning error.
func (e *SitePathError) Unwrap() error { return e.Err }
