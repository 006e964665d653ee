package htmlblock

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
)

// Errors reported in Found.Err. Callers count such comments as erasures.
var (
	// ErrTruncated means the page ends inside the comment: no "-->" follows.
	ErrTruncated = errors.New("lazarus comment truncated")
	// ErrCorrupt means the body is not valid base64 once whitespace is
	// removed, holds a character outside the base64 alphabet, or is empty.
	ErrCorrupt = errors.New("lazarus comment corrupt")
	// ErrUnknownVersion means the comment format version is not Version.
	ErrUnknownVersion = errors.New("unknown lazarus comment format version")
	// ErrUnknownKind means the kind is neither KindBlock nor KindManifest.
	ErrUnknownKind = errors.New("unknown lazarus comment kind")
	// ErrTooLarge means the body holds more than MaxBody base64 characters.
	ErrTooLarge = errors.New("lazarus comment body too large")
)

// Found is one Lazarus comment found by the scanner.
type Found struct {
	// Kind is the kind token; empty if the page ends before it is complete.
	Kind Kind
	// Version is the format version number; 0 if the page ends before it
	// is complete.
	Version int
	// Payload is the decoded body. It is nil if Err is set, except with
	// ErrUnknownKind, where it holds the payload if the body is valid.
	Payload []byte
	// Offset is the byte offset of the comment's "<!--" in the page.
	Offset int
	// End is the byte offset just past the comment's "-->", or the length
	// of the page if the comment has no "-->".
	End int
	// Err is nil for an intact comment. Otherwise it wraps ErrTruncated if
	// the page ends in the header; else ErrUnknownVersion if the version is
	// not Version, whatever the body; else the first of ErrTruncated,
	// ErrCorrupt (a byte outside the alphabet), ErrTooLarge, ErrCorrupt
	// (invalid or empty base64) and ErrUnknownKind that applies.
	Err error
}

// Scan returns every Lazarus comment in page, in page order; see All.
func Scan(page []byte) []Found {
	var out []Found
	for f := range All(page) {
		out = append(out, f)
	}
	return out
}

// All returns an iterator over the Lazarus comments in page, in page order.
//
// It works on raw bytes in one linear pass and does not parse HTML: it finds
// every "<!--" followed by optional whitespace and "lazarus", wherever it is
// (inside scripts, inside other comments, in non-UTF-8 pages), and accepts
// any ASCII whitespace (SP, HTAB, CR, LF, FF) where the grammar has some. A
// comment whose header matches "lazarus kind version" is reported even when
// damaged, with Err set; one whose header does not match (such as
// "<!-- lazarus is great -->") is not a Lazarus comment and is skipped. A
// page that ends where a header may still follow, even right after a
// "<!--", yields a final Found with ErrTruncated. The body of an intact
// comment ends at the first byte that is neither base64 nor whitespace,
// which must begin "-->"; scanning resumes after it, or, for a damaged
// comment, where its body stopped (after the header for unknown versions),
// so a comment that lost its "-->" does not hide the next one.
func All(page []byte) iter.Seq[Found] {
	return func(yield func(Found) bool) {
		s := scanner{page: page, limit: MaxBody}
		for {
			f, ok := s.next()
			if !ok || !yield(f) {
				return
			}
		}
	}
}

// scanner holds the state of one pass over a page.
type scanner struct {
	page    []byte
	pos     int    // where to search for the next opener
	limit   int    // maximum body characters, normally MaxBody
	scratch []byte // body characters without whitespace
	// validateOnly checks bodies without decoding them: Found.Payload
	// stays nil (Strip only needs to know where intact comments are).
	validateOnly bool
	// closeFrom and closeAt memoize the search for "-->": once
	// closeSearched, the first one at or after closeFrom is at closeAt, or
	// nowhere if closeAt is -1.
	closeSearched      bool
	closeFrom, closeAt int
}

// next returns the next Lazarus comment, or false at the end of the page.
func (s *scanner) next() (Found, bool) {
	for s.pos < len(s.page) {
		i := bytes.Index(s.page[s.pos:], []byte(opener))
		if i < 0 {
			break
		}
		off := s.pos + i
		h, at, st := parseHeader(s.page, off+len(opener))
		switch st {
		case headerNone:
			s.pos = at
			continue
		case headerTruncated:
			s.pos = len(s.page)
			f := Found{Kind: h.kind, Offset: off, End: len(s.page)}
			f.Err = fmt.Errorf("offset %d: %w", off, ErrTruncated)
			return f, true
		}
		return s.comment(off, h), true
	}
	s.pos = len(s.page)
	return Found{}, false
}

// comment reads the body of the comment at off with header h.
func (s *scanner) comment(off int, h header) Found {
	f := Found{Kind: h.kind, Version: h.version, Offset: off}
	if h.version != Version {
		f.End = s.closeEnd(h.body)
		f.Err = fmt.Errorf("offset %d: %w", off, &versionError{h.verText, h.version})
		s.pos = h.body
		return f
	}
	var stop, n int
	s.scratch, stop, n = scanBody(s.page, h.body, s.scratch[:0], s.limit)
	switch rest := s.page[stop:]; {
	case len(rest) == 0 || isCloserPrefix(rest):
		f.End, s.pos = len(s.page), len(s.page)
		f.Err = fmt.Errorf("offset %d: %w", off, ErrTruncated)
	case !bytes.HasPrefix(rest, []byte(closer)):
		f.End, s.pos = s.closeEnd(stop), stop
		f.Err = fmt.Errorf("offset %d: %w: byte %#02x at offset %d is not base64", off, ErrCorrupt, rest[0], stop)
	default:
		f.End = stop + len(closer)
		s.pos = f.End
		if s.validateOnly {
			f.Err = s.validate(off, h.kind, n)
		} else {
			f.Payload, f.Err = s.decode(off, h.kind, n)
		}
	}
	return f
}

// decode decodes the n body characters collected in the scratch buffer.
func (s *scanner) decode(off int, kind Kind, n int) ([]byte, error) {
	switch {
	case n > s.limit:
		return nil, fmt.Errorf("offset %d: %w: %d base64 characters (limit %d)", off, ErrTooLarge, n, s.limit)
	case n == 0:
		return nil, fmt.Errorf("offset %d: %w: empty body", off, ErrCorrupt)
	}
	p := make([]byte, strict.DecodedLen(n))
	m, err := strict.Decode(p, s.scratch)
	if err != nil {
		return nil, fmt.Errorf("offset %d: %w: %v", off, ErrCorrupt, err)
	}
	if !kind.known() {
		return p[:m], fmt.Errorf("offset %d: %w %q", off, ErrUnknownKind, kind)
	}
	return p[:m], nil
}

// validate checks the n body characters in the scratch buffer as decode
// would, without decoding them.
func (s *scanner) validate(off int, kind Kind, n int) error {
	if n == 0 || n > s.limit || !validBase64(s.scratch) || !kind.known() {
		return fmt.Errorf("offset %d: %w", off, ErrCorrupt)
	}
	return nil
}

// closeEnd returns the offset just past the first "-->" at or after i, or
// len(page) if there is none. Successive calls with non-decreasing i take
// linear time in total.
func (s *scanner) closeEnd(i int) int {
	if !s.closeSearched || i < s.closeFrom || (s.closeAt >= 0 && s.closeAt < i) {
		s.closeSearched, s.closeFrom, s.closeAt = true, i, -1
		if j := bytes.Index(s.page[i:], []byte(closer)); j >= 0 {
			s.closeAt = i + j
		}
	}
	if s.closeAt < 0 {
		return len(s.page)
	}
	return s.closeAt + len(closer)
}

// versionError reports a comment format version other than Version.
type versionError struct {
	text    []byte // the version token as written
	version int
}

func (e *versionError) Error() string {
	v := string(e.text)
	if len(v) > 20 {
		v = v[:20] + "…"
	}
	if e.version > Version {
		return fmt.Sprintf("lazarus comment format version %s is newer than this program understands (%d); upgrade lazarus", v, Version)
	}
	return fmt.Sprintf("lazarus comment format version %s is not supported by this program, which understands version %d", v, Version)
}

func (e *versionError) Unwrap() error { return ErrUnknownVersion }
