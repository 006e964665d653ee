package main

import (
	"fmt"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// requestsHorizon is the horizon a plan counting on capture requests is
// made for: the archives should hold the generation within a day of its
// publication, confirmed by lazarus capture's audit.
const requestsHorizon = 24 * time.Hour

// plannedRequests is what inject's target plan counts on of the capture
// requests that follow it, nil if none, with a note saying why when the
// config has a [capture] table (the deploy recipes then run lazarus
// capture after inject) but its requests cannot be counted on. The
// requests are those lazarus capture makes with the same table: with
// keys, each taken with the success measured on the requests recorded in
// the archive state (a prior of one in two until some are); without
// keys, only once requests were recorded taken (the Internet Archive
// has refused programs without keys since 2025), and none after a
// refusal. A page is asked for as often as capture's attempts and
// retry schedule allow within its wait and the horizon.
func plannedRequests(cfg *injectConfig, rec *genstate.Record, now time.Time) (*injector.Requests, string) {
	if !cfg.captureTable {
		return nil, ""
	}
	cc := &captureCmd{}
	cc.fromConfig(cfg)
	keyed := cc.accessKeys != ""
	taken, sent := recordedRequests(rec, keyed)
	q := &injector.Requests{Sent: sent, Horizon: requestsHorizon,
		Attempts: attemptsWithin(min(cc.wait, requestsHorizon), orDefault(cc.retry, capture.DefaultRetry), orDefault(cc.attempts, capture.DefaultAttempts))}
	const own = "the plan counts on the archives' own crawls"
	switch {
	case cc.requests == requestsOff:
		return nil, "capture requests are off: " + own
	case keyed:
		if _, err := readAccessKeys(cc.accessKeys, io.Discard); err != nil {
			return nil, fmt.Sprintf("capture.access_key_file cannot be used (%v), so lazarus capture would ask nothing: %s", err, own)
		}
		q.Success = injector.MeasuredSuccess(taken, sent)
		return q, ""
	case cc.requests == requestsKeyed:
		return nil, "capture requests need keys (requests = \"keyed\") and access_key_file is not set: " + own + "; " + keysBuy
	}
	if t, refused := rec.KeylessRefusedSince("wayback", now); refused {
		return nil, fmt.Sprintf("the Internet Archive refused requests without keys on %s: %s; %s", t.Format(time.DateOnly), own, keysBuy)
	}
	if sent < injector.PriorWeight || taken == 0 {
		return nil, fmt.Sprintf("requests without keys are counted on once %d are recorded and some were taken (%d sent, %d taken so far): %s; %s",
			injector.PriorWeight, sent, taken, own, keysBuy)
	}
	q.Success = float64(taken) / float64(sent)
	return q, ""
}

// recordedRequests sums the requests recorded for every generation,
// with keys or without.
func recordedRequests(rec *genstate.Record, keyed bool) (taken, sent int) {
	for _, g := range rec.Generations {
		for _, r := range g.Requested {
			if r.Keyed == keyed {
				taken, sent = taken+r.Taken, sent+r.Sent
			}
		}
	}
	return taken, sent
}

// attemptsWithin is how many requests lazarus capture makes for a page
// within d of the first, at most attempts: it asks again retry after a
// failure, the pause doubling after each (capture's schedule).
func attemptsWithin(d, retry time.Duration, attempts int) int {
	n, at, pause := 1, time.Duration(0), retry
	for n < attempts && at+pause <= d {
		at += pause
		pause *= 2
		n++
	}
	return n
}
