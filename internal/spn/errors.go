package spn

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// Errors that end a run, which callers branch on.
var (
	// ErrRefused means the API refused the access key (HTTP 401 or 403,
	// or an answer saying the user must log in).
	ErrRefused = errors.New("the access key was refused")
	// ErrDailyLimit means the user's daily capture limit is reached
	// (status_ext error:too-many-daily-captures): nothing more can be
	// captured today.
	ErrDailyLimit = errors.New("the daily capture limit is reached")
	// ErrHostPaused means the archive paused crawling of the site's host
	// (error:host-crawling-paused): asking again will not help for now.
	ErrHostPaused = errors.New("the archive paused crawling of the site's host")
	// ErrWaitTooLong means the API asked (Retry-After) to wait longer than
	// Options.MaxWait before the next submission, or kept throttling one
	// submission through every answer the client waits out: try later.
	ErrWaitTooLong = errors.New("the archive asked to wait too long")
	// ErrUnreachable means the first submission of a run failed for good
	// (no connection, or HTTP errors through every retry) before the API
	// ever accepted one: the base URL is wrong or the service is down, so
	// the other URLs are not tried.
	ErrUnreachable = errors.New("the Save Page Now API cannot be reached")
)

// Status_ext values the client treats specially (the SPN2 documentation
// lists about thirty; the others fail one job only).
const (
	ExtSessionLimit  = "error:user-session-limit"
	ExtDailyLimit    = "error:too-many-daily-captures"
	ExtHostPaused    = "error:host-crawling-paused"
	ExtTooManyNow    = "error:too-many-requests"
	ExtForeignTarget = "error:redirected-to-another-host" // set by this client, not the API
)

// JobError is an error answer of the API about one URL: its status_ext
// (e.g. "error:not-found") and message.
type JobError struct {
	Ext     string
	Message string
}

// Error implements error.
func (e *JobError) Error() string {
	if e.Message == "" {
		return e.Ext
	}
	return e.Ext + ": " + e.Message
}

// Unwrap returns the run-ending sentinel the error stands for, if any.
func (e *JobError) Unwrap() error {
	switch {
	case e.Ext == ExtDailyLimit:
		return ErrDailyLimit
	case e.Ext == ExtHostPaused:
		return ErrHostPaused
	case e.Ext == "error:unauthorized", strings.Contains(e.Message, "need to be logged in"):
		return ErrRefused
	}
	return nil
}

// fatal reports whether err ends the whole run, not just one job.
func fatal(err error) bool {
	return errors.Is(err, ErrRefused) || errors.Is(err, ErrKeysRequired) || errors.Is(err, ErrDailyLimit) || errors.Is(err, ErrHostPaused) ||
		errors.Is(err, ErrWaitTooLong) || errors.Is(err, ErrUnreachable)
}

// waitError is a throttling answer asking to wait beyond MaxWait, or
// one of several whose waits for one request add up to more (inAll).
type waitError struct {
	wait  time.Duration
	inAll bool
}

func (e *waitError) Error() string {
	if e.inAll {
		return fmt.Sprintf("spn: the archive asked to wait %s in all before taking one request; try later", humane.Duration(e.wait))
	}
	return fmt.Sprintf("spn: the archive asked to wait %s; try later", humane.Duration(e.wait))
}

func (e *waitError) Unwrap() error { return ErrWaitTooLong }

// sessionLimited reports whether err asks to wait for running sessions
// to finish before submitting again.
func sessionLimited(err error) bool {
	var je *JobError
	return errors.As(err, &je) && (je.Ext == ExtSessionLimit || je.Ext == ExtTooManyNow)
}

// httpError is a non-2xx answer without an SPN error body.
type httpError struct {
	method, path string
	status       int
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d", e.method, e.path, e.status)
}
