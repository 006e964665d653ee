package main

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	lzcapture "github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// This file is the requests mode's mechanism: the capture requests
// lazarus capture makes right after each inject, replayed in the
// world's time (the real capture loop runs in wall-clock time, so it is
// not run). What is mechanism: which pages are asked for (every page
// carrying the new generation's blocks or manifest, the root and the
// other manifest pages first), Save Page Now's rate with keys (12
// requests a minute, internal/spn), a failed request asked again after
// capture's retry pause, doubling (10 min, 20 min, …), up to the
// attempts, and a taken request becoming a Wayback capture of the page
// as the site serves it when it is fetched. What is assumed: each request
// is taken independently with the plan's success; the fetch comes 5 to
// 60 s after the request (uniform: internal/spn polls a job from 5 s);
// the capture is listed after a log-normal lag of median 1 h and σ 1
// (the lag kinds.go gives Save Page Now: capture's DefaultGrace says the
// Wayback index shows most captures within minutes to hours), so 5% of
// captures take more than 5 h and 1 in 1,300 more than a day.

// requestPlan is the requests mode's settings: the share of requests
// the archive takes and how often a page is asked for.
type requestPlan struct {
	Success  float64 `json:"success"`
	Attempts int     `json:"attempts"`
}

// The requests' schedule and lags.
var (
	requestEvery    = spn.DefaultRate.Per / time.Duration(spn.DefaultRate.N) // one request per 5 s
	requestRetry    = lzcapture.DefaultRetry                                 // the first pause after a failed request, doubling
	requestFetch    = [2]time.Duration{5 * time.Second, time.Minute}         // from a taken request to the fetch, uniform
	requestLagHours = 1.0                                                    // median listing lag, log-normal of σ 1
	requestsHorizon = day                                                    // the horizon inject plans the requests for
)

// options returns what inject is told of the requests: each taken with
// Success, a page asked up to Attempts times within a day.
func (q requestPlan) options() *injector.Requests {
	return &injector.Requests{Success: q.Success, Attempts: q.Attempts, Horizon: requestsHorizon}
}

// requestLog is what the requests for one generation did.
type requestLog struct {
	Sent, Taken int
	Asks        []asked   // every request, in the order sent
	Captures    []capture // the Wayback captures the taken ones made
}

// asked is one request: the page and when it was sent.
type asked struct {
	URL string
	At  time.Time
}

// captures asks for pages in order from start, one request per
// requestEvery, each taken with q.Success; a page whose request failed
// is due again requestRetry later, the pause doubling, until it is
// taken or asked q.Attempts times. A taken request is fetched
// requestFetch later as the site serves it then, and listed after a
// log-normal lag.
func (q requestPlan) captures(rng *rand.Rand, srv served, pages []string, start time.Time) requestLog {
	type ask struct {
		url  string
		due  time.Time
		sent int
	}
	queue := make([]ask, len(pages))
	for i, u := range pages {
		queue[i] = ask{url: u, due: start}
	}
	var log requestLog
	free := start // when the rate allows the next request
	for len(queue) > 0 {
		i := 0
		for j, a := range queue {
			if a.due.Before(queue[i].due) {
				i = j
			}
		}
		a := queue[i]
		queue = slices.Delete(queue, i, i+1)
		at := a.due
		if free.After(at) {
			at = free
		}
		free = at.Add(requestEvery)
		log.Sent++
		log.Asks = append(log.Asks, asked{a.url, at})
		a.sent++
		if rng.Float64() < q.Success {
			log.Taken++
			fetched := at.Add(requestFetch[0] + time.Duration(rng.Float64()*float64(requestFetch[1]-requestFetch[0])))
			if body := srv.at(a.url, fetched); body != nil {
				log.Captures = append(log.Captures, capture{URL: a.url, Time: fetched,
					Visible: fetched.Add(hours(logNormal(rng, requestLagHours, 1))), Body: body})
			}
			continue
		}
		if a.sent < q.Attempts {
			a.due = at.Add(requestRetry << (a.sent - 1))
			queue = append(queue, a)
		}
	}
	return log
}

// requestOrder is the pages lazarus capture asks for after an inject
// that reported rep: every page carrying the new generation's blocks or
// its manifest, the root page first, then the other pages carrying the
// manifest, then the rest, each group in the report's order.
func requestOrder(rep *injector.Report) []string {
	var root, manifest, rest []string
	for _, p := range rep.Pages {
		switch {
		case p.Blocks == 0 && !p.Manifest:
		case p.URL == "/":
			root = append(root, p.URL)
		case p.Manifest:
			manifest = append(manifest, p.URL)
		default:
			rest = append(rest, p.URL)
		}
	}
	return slices.Concat(root, manifest, rest)
}
