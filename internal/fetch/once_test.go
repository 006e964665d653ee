package fetch

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNoSilentResend: the archive resets the connection of the second
// request, after the first was answered on it. Expected: every request
// the archive sees is one the client paced (Go's Transport resends an
// idempotent request on a broken reused connection by itself; the
// default transport keeps no connection to reuse), and the client's own
// retry succeeds.
func TestNoSilentResend(t *testing.T) {
	var arrivals atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrivals.Add(1) == 2 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	clock := newFakeClock()
	rt := onceTransport()
	var paced atomic.Int32
	c := New(Options{Rate: 60, now: clock.now, sleep: clock.sleep, jit: func() float64 { return 0.5 },
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			paced.Add(1)
			return rt.RoundTrip(r)
		})})
	for range 2 {
		resp, err := get(t, c, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if arrivals.Load() != paced.Load() || paced.Load() != 3 {
		t.Errorf("the archive saw %d requests, the client paced %d; want 3 and 3", arrivals.Load(), paced.Load())
	}
}

// TestRedirectPaced: a redirect is one more request, started no sooner
// than the host's rate allows. Expected: at 60 per minute, the request
// that follows a redirect starts a second after the first.
func TestRedirectPaced(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			http.Redirect(w, r, "/b", http.StatusFound)
			return
		}
		io.WriteString(w, "b")
	}))
	defer srv.Close()
	clock := newFakeClock()
	c := testClient(clock, Options{Rate: 60})
	resp, err := get(t, c, srv.URL+"/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(clock.starts) != 2 || clock.starts[1].Sub(clock.starts[0]) < time.Second {
		t.Errorf("request starts %v, want two a second apart", clock.starts)
	}
}
