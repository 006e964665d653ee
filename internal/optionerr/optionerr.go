// Package optionerr is how the public packages (injector, recover) say
// what is wrong with the options of a run: every problem, each naming
// the Options field at fault and stating the fact in the library's words
// (never a flag's), so that a command line can put it in its own.
package optionerr

import (
	"fmt"
	"strings"
)

// List lists every problem with the options of a run; nothing was done.
// Each problem is an *Error.
type List struct{ Problems []error }

// Error joins the problems.
func (e *List) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the problems, so errors.As finds an *Error.
func (e *List) Unwrap() []error { return e.Problems }

// Error is one problem with the options, stated as a fact.
type Error struct {
	// Field is the path of the Options field at fault: "PageBudget",
	// "SiteURL", "Includes.Segment", "Dumps.Command"… For a problem that
	// involves several fields it is the first one the problem names.
	Field string
	// Msg is the fact, without field or flag names.
	Msg string
}

// Error returns the fact.
func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error for field.
func Errorf(field, format string, args ...any) error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Join returns nil for no problems, else a *List of them.
func Join(problems []error) error {
	if len(problems) == 0 {
		return nil
	}
	return &List{Problems: problems}
}
