package archivetest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// Faults configures injected failures. Rates are fractions of requests in
// [0, 1]; their sum must not exceed 1. The zero value injects none.
type Faults struct {
	Throttle    float64 // answered 429 Too Many Requests with Retry-After
	Unavailable float64 // answered 503 Service Unavailable with Retry-After
	Reset       float64 // connection reset before any answer
	// RetryAfter is sent with 429 and 503, rounded down to whole seconds;
	// defaults to 1s.
	RetryAfter time.Duration
	// SlowBody pauses this long between body chunks of every normal
	// answer; defaults to 0 (no pause).
	SlowBody time.Duration
	// SlowChunk is the chunk size used with SlowBody; defaults to 512.
	SlowChunk int
	// Seed seeds the fault choice, so a run is reproducible.
	Seed uint64
}

// fault kinds chosen per request.
const (
	faultNone = iota
	faultThrottle
	faultUnavailable
	faultReset
)

// faultNames names fault kinds in the request log.
var faultNames = [...]string{"", "429", "503", "reset"}

// faultState is Faults plus its random source.
type faultState struct {
	f   Faults
	rng *rand.Rand
}

// newFaultState validates f and fills defaults.
func newFaultState(f Faults) (*faultState, error) {
	for _, r := range []float64{f.Throttle, f.Unavailable, f.Reset} {
		if r < 0 || r > 1 || r != r {
			return nil, fmt.Errorf("archivetest: fault rate %v outside [0, 1]", r)
		}
	}
	if f.Throttle+f.Unavailable+f.Reset > 1 {
		return nil, fmt.Errorf("archivetest: fault rates sum above 1")
	}
	if f.RetryAfter < 0 || f.SlowBody < 0 || f.SlowChunk < 0 {
		return nil, fmt.Errorf("archivetest: negative fault duration or chunk")
	}
	if f.RetryAfter == 0 {
		f.RetryAfter = time.Second
	}
	if f.SlowChunk == 0 {
		f.SlowChunk = 512
	}
	return &faultState{f: f, rng: rand.New(rand.NewPCG(f.Seed, 0x6c617a61727573))}, nil
}

// pick draws the fault for one request; the caller holds the lock.
func (fs *faultState) pick() int {
	x := fs.rng.Float64()
	switch {
	case x < fs.f.Throttle:
		return faultThrottle
	case x < fs.f.Throttle+fs.f.Unavailable:
		return faultUnavailable
	case x < fs.f.Throttle+fs.f.Unavailable+fs.f.Reset:
		return faultReset
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

// middleware logs every request and applies the configured faults.
func (s *Server) middleware(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		s.mu.Lock()
		kind, f := s.faults.pick(), s.faults.f
		s.mu.Unlock()
		switch kind {
		case faultReset:
			s.record(at, r, 0, kind)
			resetConn(w)
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
		s.record(at, r, rec.Code, faultNone)
		writeSlowly(w, r, rec, f)
	})
}

// resetConn closes the client connection abruptly (RST where possible).
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
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
