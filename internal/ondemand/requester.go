package ondemand

import (
	"context"
	"time"
)

// Requester asks one archive to capture pages now. Implementations honour
// the archive's limits themselves (rate, pending jobs, Retry-After), so a
// caller may hand them every URL at once.
type Requester interface {
	// Archive is the name of the source whose listing confirms the
	// captures (the status source's Name): "wayback" for the Internet
	// Archive.
	Archive() string
	// Keyed reports whether the requests go with the user's keys (higher
	// limits, a job status per request) rather than without.
	Keyed() bool
	// SaveAll asks for urls, in the order given, and calls each (never
	// concurrently) with every URL's result as it is known. It returns
	// once every request finished or was abandoned; the error is the one
	// that ended the run early (the URLs not sent then are reported in
	// StateNotSent): the archive refused the keys (or requests without
	// keys), a daily limit, or ctx's error.
	SaveAll(ctx context.Context, urls []string, each func(Result)) error
}

// States of a Result.
const (
	// StateSuccess: the archive says it captured the page (Time is the
	// capture's timestamp).
	StateSuccess = "success"
	// StateAccepted: the archive took the request but named no capture
	// (a request without keys whose answer carried no capture location):
	// only its listing can tell.
	StateAccepted = "accepted"
	// StateError: the archive refused the URL or the capture failed (Err
	// says why).
	StateError = "error"
	// StateAbandoned: the job was still pending when the requester
	// stopped waiting for it.
	StateAbandoned = "abandoned"
	// StateNotSent: the run ended before the URL was sent.
	StateNotSent = "not-sent"
)

// Result is what became of one URL.
type Result struct {
	URL   string
	JobID string // "" if the archive gave none
	// State is one of the States above.
	State string
	// OriginalURL and Time name the capture, on success.
	OriginalURL string
	Time        time.Time
	// Err says why, in state StateError (and StateAbandoned).
	Err error
	// Submitted is when the archive accepted the request; Finished when
	// its outcome was known.
	Submitted, Finished time.Time
}

// Taken reports whether the archive took the request: it captured the
// page, or accepted the request without naming a capture.
func (r Result) Taken() bool { return r.State == StateSuccess || r.State == StateAccepted }
