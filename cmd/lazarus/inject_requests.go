package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// plannedRequests is what inject's target plan counts on of the capture
// requests that follow it, nil if none, with a note saying why when the
// config has a [capture] table (the deploy recipes then run lazarus
// capture after inject) but its requests cannot be counted on. The
// requests are those lazarus capture makes with the same table, each
// taken with the success the archive state's recorded requests give
// (genstate.Record.RequestSuccess: with keys, measured from a prior of
// one in two, not after the keys were refused; without keys, only once
// requests were recorded taken, and none after a refusal). A page is
// asked for as often as capture's attempts and retry schedule allow
// within its wait and the horizon.
func plannedRequests(cfg *injectConfig, rec *genstate.Record, now time.Time) (*injector.Requests, string) {
	if !cfg.captureTable {
		return nil, ""
	}
	cc := &captureCmd{}
	cc.fromConfig(cfg)
	keyed := cc.accessKeys != ""
	const own = "the plan counts on the archives' own crawls"
	switch {
	case cc.requests == requestsOff:
		return nil, "capture requests are off: " + own
	case keyed:
		if _, err := readAccessKeys(cc.accessKeys, io.Discard); err != nil {
			return nil, fmt.Sprintf("capture.access_key_file cannot be used (%v), so lazarus capture would ask nothing: %s", err, own)
		}
	case cc.requests == requestsKeyed:
		return nil, "capture requests need keys (requests = \"keyed\") and access_key_file is not set: " + own + "; " + keysBuy
	}
	success, e, err := rec.RequestSuccess("wayback", keyed, now)
	switch {
	case errors.Is(err, genstate.ErrKeyRefused):
		t, _ := rec.KeyRefusedSince("wayback", now)
		return nil, fmt.Sprintf("the Internet Archive refused the keys in access_key_file on %s and has taken none of their requests since: %s", t.Format(time.DateOnly), own)
	case errors.Is(err, genstate.ErrKeylessRefused):
		t, _ := rec.KeylessRefusedSince("wayback", now)
		return nil, fmt.Sprintf("the Internet Archive refused requests without keys on %s: %s; %s", t.Format(time.DateOnly), own, keysBuy)
	case errors.Is(err, genstate.ErrKeylessUnproven):
		return nil, fmt.Sprintf("requests without keys are counted on once %d are recorded and some were taken (%d sent, %d taken so far): %s; %s",
			injector.PriorWeight, e.Sent, e.Taken, own, keysBuy)
	}
	return &injector.Requests{Success: success, Sent: e.Sent, Horizon: injector.DefaultRequestsHorizon,
		Attempts: capture.AttemptsWithin(min(cc.wait, injector.DefaultRequestsHorizon), orDefault(cc.retry, capture.DefaultRetry), orDefault(cc.attempts, capture.DefaultAttempts))}, ""
}
