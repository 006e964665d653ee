package statushtml

import (
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// notTheArchives says why nothing is recoverable when the cause is not
// what the archives hold, as a headline and a sentence explaining it; ""
// otherwise (or when something is recoverable). recover.Status decides
// it (StatusReport.Cause: the wrong key, every source unreadable), so
// the page, the CLI and the Caddy module's audit say the same.
func notTheArchives(r *lzrecover.StatusReport) (title, why string) {
	c := r.Cause
	if c == nil || r.Outcome() != lzrecover.NothingRecoverable {
		return "", ""
	}
	switch c.Kind {
	case lzrecover.CauseSourcesFailed:
		return "Nothing could be read from the archives.",
			c.Message + ". This says nothing about what the archives hold (see Sources)."
	case lzrecover.CauseWrongKey:
		return "No generation is recoverable with this key.",
			"The archives hold Lazarus data, but " + c.Message + " (see Problems)."
	}
	return "Nothing is recoverable, and the archives are not to blame.", c.Message + "."
}
