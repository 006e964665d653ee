package archivetest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// Faults configures injected failures. Rates are fractions of requests in
// [0, 1]; their sum must not exceed 1. The zero value injects none.
type Faults struct {
	Throttle    float64 // answered 429 Too Many Requests with Retry-After
	Unavailable float64 // answered 503 Service Unavailable with Retry-After
	Reset       float64 // connection reset before any answer
	// Stall accepts the request and answers nothing until the client
	// gives up (closes the connection) or StallFor has passed, when the
	// connection is reset.
	Stall float64
	// Truncate sends the answer's status and headers with a
	// Content-Length of the whole body, then half the body (none of an
	// empty one, whose Content-Length is raised to 1), then closes the
	// connection.
	Truncate float64
	// Malformed mixes garbage, short and over-long rows into CDX answers
	// (JSON and plain text) and such lines into TimeMaps; the real rows
	// and links are all kept. Other requests never get this fault: on
	// them the other kinds share its rate, so the total rate is the same
	// on every request.
	Malformed float64
	// RetryAfter is sent with 429 and 503, rounded down to whole seconds;
	// defaults to 1s.
	RetryAfter time.Duration
	// StallFor bounds a stall; defaults to one minute.
	StallFor time.Duration
	// SlowBody pauses this long between body chunks of every normal
	// answer; defaults to 0 (no pause).
	SlowBody time.Duration
	// SlowChunk is the chunk size used with SlowBody; defaults to 512.
	SlowChunk int
	// Seed seeds the fault choice, so a run is reproducible.
	Seed uint64
}

// Mix returns Faults injecting every kind at total rate r (in [0, 1]),
// split evenly between them: 429, 503, resets, stalls, truncated bodies
// and malformed listing rows, seeded with seed. Retry-After is 1s.
func Mix(r float64, seed uint64) Faults {
	each := r / float64(numFaults-1)
	return Faults{Throttle: each, Unavailable: each, Reset: each, Stall: each, Truncate: each, Malformed: each, Seed: seed}
}

// fault kinds chosen per request.
const (
	faultNone = iota
	faultThrottle
	faultUnavailable
	faultReset
	faultStall
	faultTruncate
	faultMalformed
	numFaults
)

// Fault names, as the request log records them.
const (
	FaultThrottle    = "429"
	FaultUnavailable = "503"
	FaultReset       = "reset"
	FaultStall       = "stall"
	FaultTruncate    = "truncate"
	FaultMalformed   = "malformed"
)

// faultNames names fault kinds in the request log.
var faultNames = [numFaults]string{"", FaultThrottle, FaultUnavailable, FaultReset, FaultStall, FaultTruncate, FaultMalformed}

// faultState is Faults plus its random source.
type faultState struct {
	f   Faults
	rng *rand.Rand
}

// rates returns the rate of each kind, indexed by kind.
func (f Faults) rates() [numFaults]float64 {
	return [numFaults]float64{0, f.Throttle, f.Unavailable, f.Reset, f.Stall, f.Truncate, f.Malformed}
}

// newFaultState validates f and fills defaults.
func newFaultState(f Faults) (*faultState, error) {
	sum := 0.0
	for _, r := range f.rates() {
		if r < 0 || r > 1 || r != r {
			return nil, fmt.Errorf("archivetest: fault rate %v outside [0, 1]", r)
		}
		sum += r
	}
	if sum > 1+1e-9 {
		return nil, fmt.Errorf("archivetest: fault rates sum above 1")
	}
	if f.RetryAfter < 0 || f.SlowBody < 0 || f.SlowChunk < 0 || f.StallFor < 0 {
		return nil, fmt.Errorf("archivetest: negative fault duration or chunk")
	}
	if f.RetryAfter == 0 {
		f.RetryAfter = time.Second
	}
	if f.StallFor == 0 {
		f.StallFor = time.Minute
	}
	if f.SlowChunk == 0 {
		f.SlowChunk = 512
	}
	return &faultState{f: f, rng: rand.New(rand.NewPCG(f.Seed, 0x6c617a61727573))}, nil
}

// pick draws the fault for one request; the caller holds the lock. On a
// request that is not a listing, the malformed share goes to the other
// kinds in proportion.
func (fs *faultState) pick(listing bool) int {
	rates := fs.f.rates()
	if !listing {
		total, other := 0.0, 0.0
		for k, r := range rates {
			total += r
			if k != faultMalformed {
				other += r
			}
		}
		for k := range rates {
			if k == faultMalformed || other == 0 {
				rates[k] = 0
			} else {
				rates[k] *= total / other
			}
		}
	}
	x, acc := fs.rng.Float64(), 0.0
	for k, r := range rates {
		if acc += r; r > 0 && x < acc {
			return k
		}
	}
	return faultNone
}

// SetFaults replaces the fault configuration (and reseeds it).
func (s *Server) SetFaults(f Faults) error {
	fs, err := newFaultState(f)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.faults = fs
	s.mu.Unlock()
	return nil
}

// isListing reports whether a request asks for a listing the malformed
// fault applies to: a CDX query or a TimeMap.
func isListing(r *http.Request) bool {
	return r.URL.Path == "/cdx/search/cdx" || strings.HasPrefix(r.URL.Path, "/timemap/")
}

// middleware logs every request and applies the configured faults.
func (s *Server) middleware(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		if s.cfg.Before != nil {
			s.cfg.Before(r)
		}
		s.mu.Lock()
		kind, f := s.faults.pick(isListing(r)), s.faults.f
		seed := s.faults.rng.Uint64()
		s.mu.Unlock()
		switch kind {
		case faultReset:
			s.record(at, r, 0, kind)
			resetConn(w)
			return
		case faultStall:
			s.record(at, r, 0, kind)
			stall(w, r, f.StallFor)
			return
		case faultThrottle, faultUnavailable:
			code := http.StatusTooManyRequests
			if kind == faultUnavailable {
				code = http.StatusServiceUnavailable
			}
			w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
			http.Error(w, http.StatusText(code), code)
			s.record(at, r, code, kind)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		switch {
		case kind == faultTruncate:
			s.record(at, r, rec.Code, kind)
			truncate(w, rec)
			return
		case kind == faultMalformed && rec.Code == http.StatusOK:
			corrupt(r, rec, rand.New(rand.NewPCG(seed, 1)))
		default:
			kind = faultNone // a malformed draw on a 404 or 400 answer changes nothing
		}
		s.record(at, r, rec.Code, kind)
		writeSlowly(w, r, rec, f)
	})
}

// resetConn closes the client connection abruptly (RST where possible).
func resetConn(w http.ResponseWriter) {
	conn := hijack(w)
	if conn == nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// hijack takes over the client connection; nil if it cannot.
func hijack(w http.ResponseWriter) net.Conn {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return nil
	}
	return conn
}

// stall answers nothing until the client goes away or d has passed, then
// resets the connection.
func stall(w http.ResponseWriter, r *http.Request, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
	resetConn(w)
}

// truncate writes rec's status and headers with the Content-Length of the
// whole body (at least 1), then half the body, and closes the connection.
func truncate(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	conn := hijack(w)
	if conn == nil {
		return
	}
	defer conn.Close()
	body := rec.Body.Bytes()
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", rec.Code, http.StatusText(rec.Code))
	for k, vs := range rec.Header() {
		if k == "Content-Length" {
			continue
		}
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n", max(len(body), 1))
	b.Write(body[:len(body)/2])
	conn.Write([]byte(b.String()))
}

// writeSlowly copies a recorded answer to w, pausing between chunks when
// f.SlowBody is set.
func writeSlowly(w http.ResponseWriter, r *http.Request, rec *httptest.ResponseRecorder, f Faults) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	body := rec.Body.Bytes()
	if f.SlowBody == 0 {
		w.Write(body)
		return
	}
	fl, _ := w.(http.Flusher)
	for len(body) > 0 {
		n := min(len(body), f.SlowChunk)
		w.Write(body[:n])
		body = body[n:]
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(f.SlowBody):
		}
	}
}
