package statushtml

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// notTheArchives says why nothing is recoverable when the cause is not
// what the archives hold, as a headline and a sentence explaining it; ""
// otherwise (or when something is recoverable). recover.Status decides
// it (status.Report.Cause: the wrong key, every source unreadable), so
// the page, the CLI and the Caddy module's audit say the same. The
// sentence is the Cause's Message itself, capitalised, its long words
// (source names, URLs, errors) shortened.
func notTheArchives(r *status.Report) (title, why string) {
	c := r.Cause
	if c == nil || r.Outcome() != status.NothingRecoverable {
		return "", ""
	}
	msg := sentence(shortenWords(c.Message))
	switch c.Kind {
	case status.CauseSourcesFailed:
		return "Nothing could be read from the archives.", msg + " This says nothing about what the archives hold (see Sources)."
	case status.CauseWrongKey:
		return "No generation is recoverable with this key.", strings.TrimSuffix(msg, ".") + " (see Problems)."
	}
	return "Nothing is recoverable, and the archives are not to blame.", msg
}

// noBlocks says why the block charts are empty: nothing could be read,
// blocks were found but none verified with the key, or the archives
// hold no block of any generation.
func noBlocks(r *status.Report) string {
	if c := r.Cause; c != nil {
		switch c.Kind {
		case status.CauseSourcesFailed:
			return "Nothing could be read from the archives, so no blocks were counted."
		case status.CauseWrongKey:
			return "Lazarus blocks were found in the archives, but none verified with this key, so none is charted."
		}
	}
	return "No blocks of any generation were found in the archives."
}

// sentence makes s a sentence: its first letter upper case, a full stop
// at its end unless it has one.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}
