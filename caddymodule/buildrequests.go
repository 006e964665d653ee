package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// maxCaptureWait bounds CaptureRequests.Wait: the requests' horizon.
const maxCaptureWait = injector.DefaultRequestsHorizon

// captureAttempts is how often the module's capture requests ask for one
// page within the requests' horizon, by capture's schedule within
// CaptureRequests.Wait.
func captureAttempts(c *CaptureRequests) int {
	return capture.AttemptsWithin(min(time.Duration(c.Wait), injector.DefaultRequestsHorizon), capture.DefaultRetry, capture.DefaultAttempts)
}

// planRequests makes a build with capture requests configured plan, as
// `lazarus inject` does for `lazarus capture`, for the requests the
// module makes after publishing (CaptureRequests): within a day, each
// carrier page is asked for captureAttempts times, each request taken
// with the success measured on the requests recorded in the generation
// state (genstate.Record.RequestSuccess: a prior of one in two until
// some are, none while Save Page Now refuses the key), and the target is
// injector.DefaultRequestsTarget unless Build.Target is given. A plan by
// Redundancy counts on nothing. It returns what the plan assumed, or why
// it counts on the archives' own crawls, for the build's log line ("" if
// capture requests are not configured).
func (b *builder) planRequests(ctx context.Context, o *injector.Options) string {
	h := b.h
	if h.Audit == nil || h.Audit.CaptureRequests == nil || o.Target == 0 {
		return ""
	}
	const own = "the plan counts on the archives' own crawls"
	rec, err := h.loadArchiveState(ctx)
	if err != nil {
		return fmt.Sprintf("the generation state could not be read (%v): %s", err, own)
	}
	now := h.now()
	success, e, err := rec.RequestSuccess("wayback", true, now)
	if errors.Is(err, genstate.ErrKeyRefused) {
		t, _ := rec.KeyRefusedSince("wayback", now)
		return fmt.Sprintf("Save Page Now refused capture_requests' key on %s and has taken no request since: %s", t.Format(time.DateOnly), own)
	}
	if err != nil {
		return fmt.Sprintf("%v: %s", err, own)
	}
	o.Requests = &injector.Requests{Success: success, Sent: e.Sent, Attempts: captureAttempts(h.Audit.CaptureRequests), Horizon: injector.DefaultRequestsHorizon}
	if h.Build.Target == 0 {
		o.Target = injector.DefaultRequestsTarget
	}
	return "planned for the module's capture requests: " + o.Requests.String()
}
