package archivetest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Request is one logged request.
type Request struct {
	Time   time.Time // arrival time
	Method string
	URI    string // request URI as sent (path and query)
	Status int    // status answered (promised, for a truncated one); 0 for a reset or stalled connection
	// Fault is the injected fault: "" or one of FaultThrottle,
	// FaultUnavailable, FaultReset, FaultStall, FaultTruncate and
	// FaultMalformed.
	Fault string
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

// RequestsTo counts the logged requests whose URI starts with prefix.
func (s *Server) RequestsTo(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if strings.HasPrefix(r.URI, prefix) {
			n++
		}
	}
	return n
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
	times := arrivals(reqs)
	best, lo := 0, 0
	for hi := range times {
		for times[hi].Sub(times[lo]) > d {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// arrivals returns the requests' arrival times in order.
func arrivals(reqs []Request) []time.Time {
	times := make([]time.Time, len(reqs))
	for i, r := range reqs {
		times[i] = r.Time
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	return times
}

// CheckRate checks reqs against a client that starts at most one request
// per interval, allowing each arrival to be up to slack late (a slow
// connect, scheduling): any two arrivals k requests apart are at least
// k intervals minus slack apart, so every window holds no more than the
// rate allows, whatever its length. It returns an error naming the first
// pair that is closer.
func CheckRate(reqs []Request, interval, slack time.Duration) error {
	times := arrivals(reqs)
	for i := range times {
		for j := i + 1; j < len(times); j++ {
			if d, want := times[j].Sub(times[i]), time.Duration(j-i)*interval-slack; d < want {
				return fmt.Errorf("%d requests within %v (from %s); one per %v allows %v", j-i+1, d, times[i].Format("15:04:05.000"), interval, want+slack)
			}
		}
	}
	return nil
}
