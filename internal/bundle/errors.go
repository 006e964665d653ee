package bundle

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers may test for with errors.Is. The errors
// returned by this package carry a specific message and wrap one of these.
var (
	// ErrNotPayload means the input does not start with a valid payload
	// header (wrong magic or non-zero reserved bytes).
	ErrNotPayload = errors.New("not a lazarus payload")
	// ErrUnknownVersion means the payload uses a format version this
	// program does not understand.
	ErrUnknownVersion = errors.New("unknown payload format version")
	// ErrTooLarge means the payload declares a tar stream larger than
	// ExtractOptions.MaxTarSize.
	ErrTooLarge = errors.New("payload too large")
	// ErrBomb means the decompressed data is longer than the size declared
	// in the payload header.
	ErrBomb = errors.New("decompressed data exceeds the declared size")
	// ErrTruncated means the payload ended before the declared tar size
	// was reached.
	ErrTruncated = errors.New("payload truncated")
	// ErrCorrupt means the compressed or tar stream is malformed, or its
	// entries are inconsistent (duplicates, unsupported types).
	ErrCorrupt = errors.New("payload corrupt")
	// ErrUnsafePath means an entry name (or hard link target) is absolute,
	// escapes the target directory, or is otherwise not a clean relative
	// slash-separated path.
	ErrUnsafePath = errors.New("unsafe path")
	// ErrThroughSymlink means an entry would be written below a symbolic
	// link.
	ErrThroughSymlink = errors.New("path goes through a symbolic link")
	// ErrExists means an extracted top-level name already exists in the
	// target directory and ExtractOptions.Force is not set, or that an
	// existing directory would have to be replaced by a non-directory.
	ErrExists = errors.New("already exists")
	// ErrChanged means a file changed (size or identity) while it was being
	// packed; packing again later may succeed.
	ErrChanged = errors.New("file changed while packing")
)

// taggedError is an error with its own message that still matches a
// sentinel with errors.Is.
type taggedError struct {
	msg      string
	sentinel error
	cause    error
}

func (e *taggedError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}

func (e *taggedError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.sentinel, e.cause}
	}
	return []error{e.sentinel}
}

// tagf returns an error with the formatted message that wraps sentinel.
func tagf(sentinel error, format string, args ...any) error {
	return &taggedError{msg: fmt.Sprintf(format, args...), sentinel: sentinel}
}

// tagCause is like tagf but also wraps (and prints) an underlying cause.
func tagCause(sentinel, cause error, format string, args ...any) error {
	return &taggedError{msg: fmt.Sprintf(format, args...), sentinel: sentinel, cause: cause}
}
