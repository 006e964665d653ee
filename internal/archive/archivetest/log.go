package archivetest

import (
	"net/http"
	"slices"
	"time"
)

// Request is one logged request.
type Request struct {
	Time   time.Time // arrival time
	Method string
	URI    string // request URI as sent (path and query)
	Status int    // status answered; 0 for a reset connection
	Fault  string // injected fault: "", "429", "503" or "reset"
}

// record appends one request to the log.
func (s *Server) record(at time.Time, r *http.Request, status, kind int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, Request{Time: at, Method: r.Method, URI: r.RequestURI, Status: status, Fault: faultNames[kind]})
}

// Requests returns a copy of the request log in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// MaxRequestsIn returns the largest number of logged requests that arrived
// within any window of length d (closed on both ends), so a test can assert
// that a client never exceeded a rate.
func (s *Server) MaxRequestsIn(d time.Duration) int {
	return MaxInWindow(s.Requests(), d)
}

// MaxInWindow returns the largest number of reqs whose arrival times fit in
// a window of length d.
func MaxInWindow(reqs []Request, d time.Duration) int {
	times := make([]time.Time, len(reqs))
	for i, r := range reqs {
		times[i] = r.Time
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	best, lo := 0, 0
	for hi := range times {
		for times[hi].Sub(times[lo]) > d {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}
