package archivetest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// faulty starts a server with the test captures and faults f.
func faulty(t *testing.T, f Faults) *Server {
	t.Helper()
	return start(t, Config{Faults: f})
}

// TestFaultStall: the server answers nothing until the client gives up;
// the client's timeout ends the request and the log says "stall".
// Expected: a timeout error, no byte received.
func TestFaultStall(t *testing.T) {
	s := faulty(t, Faults{Stall: 1})
	c := s.Client()
	c.Timeout = 200 * time.Millisecond
	resp, err := c.Get(s.URL + "/web/20200501120000id_/http://example.org/")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("status %d from a stalled request", resp.StatusCode)
	}
	var ne interface{ Timeout() bool }
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("err %v, want a timeout", err)
	}
	// StallFor bounds a stall for a client without a timeout: then reset.
	if err := s.SetFaults(Faults{Stall: 1, StallFor: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if resp, err := s.Client().Get(s.URL + "/collinfo.json"); err == nil {
		resp.Body.Close()
		t.Errorf("status %d after a bounded stall, want a reset", resp.StatusCode)
	}
	log := s.Requests()
	if len(log) != 2 || log[0].Fault != FaultStall || log[1].Fault != FaultStall || log[0].Status != 0 {
		t.Errorf("log %+v", log)
	}
}

// TestFaultTruncate: the answer promises its whole length and sends half.
// Expected: the status and headers arrive, reading the body ends in
// io.ErrUnexpectedEOF after half the bytes; an empty body promises one.
func TestFaultTruncate(t *testing.T) {
	s := faulty(t, Faults{Truncate: 1})
	want := testCaptures()[0].Body
	resp, err := s.Client().Get(s.URL + "/web/20200501120000id_/http://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) || resp.ContentLength != int64(len(want)) || string(body) != string(want[:len(want)/2]) {
		t.Errorf("status %d, length %d, body %q, err %v", resp.StatusCode, resp.ContentLength, body, err)
	}
	if resp.Header.Get("Memento-Datetime") == "" {
		t.Errorf("headers lost: %v", resp.Header)
	}
	// A redirect has no body: it promises one byte and sends none.
	resp, err = s.Client().Get(s.URL + "/web/2020id_/http://example.org/img.png")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Errorf("a truncated redirect and its target read whole")
	}
	for _, r := range s.Requests() {
		if r.Fault != FaultTruncate {
			t.Errorf("log %+v", r)
		}
	}
}

// TestFaultMalformedCDXJSON: three bad rows (short, garbage, over-long)
// among the real ones, which are all kept, in order, before the resume
// key. Expected: the clean answer's rows are a subsequence of the faulty
// one, which has three more.
func TestFaultMalformedCDXJSON(t *testing.T) {
	clean := start(t, Config{MaxRows: 2})
	s := start(t, Config{MaxRows: 2, Faults: Faults{Malformed: 1, Seed: 3}})
	q := "/cdx/search/cdx?output=json&url=example.org/*&showResumeKey=true"
	parse := func(srv *Server) [][]any {
		code, _, body := get(t, srv, q)
		var rows [][]any
		if err := json.Unmarshal([]byte(body), &rows); code != 200 || err != nil {
			t.Fatalf("%d %v: %.200q", code, err, body)
		}
		return rows
	}
	want, got := parse(clean), parse(s)
	if len(got) != len(want)+3 {
		t.Fatalf("%d rows, want %d", len(got), len(want)+3)
	}
	var kept [][]any
	kinds := map[string]bool{}
	for _, row := range got {
		switch {
		case len(row) == 1 && row[0] == "org,example)/":
			kinds["short"] = true
		case len(row) > 1 && row[0] == nil:
			kinds["garbage"] = true
		case len(row) > 1 && len(row[0].(string)) == OverlongBytes:
			kinds["over-long"] = true
		default:
			kept = append(kept, row)
		}
	}
	if len(kinds) != 3 || !equalRows(kept, want) {
		t.Errorf("kinds %v; kept rows %q, want %q", kinds, kept, want)
	}
	if r := s.Requests()[0]; r.Fault != FaultMalformed || r.Status != 200 {
		t.Errorf("log %+v", r)
	}
}

func equalRows(a, b [][]any) bool {
	return slices.EqualFunc(a, b, func(x, y []any) bool {
		return slices.EqualFunc(x, y, func(p, q any) bool { return p == q })
	})
}

// TestFaultMalformedCDXText: the same in plain-text answers. Expected: the
// clean lines in order, three more before the blank line and resume key.
func TestFaultMalformedCDXText(t *testing.T) {
	clean := start(t, Config{MaxRows: 2})
	s := start(t, Config{MaxRows: 2, Faults: Faults{Malformed: 1, Seed: 4}})
	q := "/cdx/search/cdx?url=example.org/*&showResumeKey=true"
	_, _, want := get(t, clean, q)
	_, _, got := get(t, s, q)
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var kept []string
	for _, l := range gl {
		if l != "org,example)/ 2020" && !strings.Contains(l, "garbage") && len(l) < OverlongBytes {
			kept = append(kept, l)
		}
	}
	if len(gl) != len(wl)+3 || !slices.Equal(kept, wl) || gl[len(gl)-3] != "" {
		t.Errorf("got %d lines, kept %q, want %q", len(gl), kept, wl)
	}
}

// TestFaultMalformedTimeMap: a garbage line, a short link and an
// over-long one among the links. Expected: every clean line kept, in
// order, three more lines.
func TestFaultMalformedTimeMap(t *testing.T) {
	clean := start(t, Config{})
	s := start(t, Config{Faults: Faults{Malformed: 1, Seed: 5}})
	p := "/timemap/link/http://example.org/"
	_, _, want := get(t, clean, p)
	code, h, got := get(t, s, p)
	if code != 200 || h.Get("Content-Type") != "application/link-format" {
		t.Fatalf("%d %v", code, h)
	}
	// The servers' own URLs differ: compare with them blanked.
	want, got = strings.ReplaceAll(want, clean.URL, "BASE"), strings.ReplaceAll(got, s.URL, "BASE")
	wl, gl := strings.SplitAfter(want, ",\n"), strings.SplitAfter(got, ",\n")
	var kept []string
	bad := 0
	for _, l := range gl {
		if strings.HasPrefix(l, "garbage") || strings.Contains(l, "> rel=") || len(l) > OverlongBytes {
			bad++
			continue
		}
		kept = append(kept, l)
	}
	if bad != 3 || !slices.Equal(kept, wl) || !strings.HasPrefix(got, "<http://example.org/>; rel=\"original\"") {
		t.Errorf("bad lines %d; got\n%.2000s", bad, got)
	}
}

// TestFaultMalformedOnlyListings: the malformed share never lands on
// other requests: with nothing else configured, a replay is clean.
func TestFaultMalformedOnlyListings(t *testing.T) {
	s := faulty(t, Faults{Malformed: 1})
	if code, _, body := get(t, s, "/web/20200501120000id_/http://example.org/"); code != 200 || body != string(testCaptures()[0].Body) {
		t.Errorf("%d %q", code, body)
	}
	if r := s.Requests()[0]; r.Fault != "" {
		t.Errorf("log %+v", r)
	}
}

// TestMix: every kind at a total rate of 30%, seeded. Expected: each kind
// seen on listings, the total near 30%, and the same seed gives the same
// sequence of faults.
func TestMix(t *testing.T) {
	run := func(seed uint64) (kinds, uris []string) {
		f := Mix(0.3, seed)
		f.StallFor = time.Millisecond
		s := faulty(t, f)
		c := s.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		for i := range 600 {
			u := s.URL + "/cdx/search/cdx?output=json&url=example.org/*"
			if i%2 == 1 {
				u = s.URL + "/web/20200501120000id_/http://example.org/"
			}
			if resp, err := c.Get(u); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		for _, r := range s.Requests() {
			kinds, uris = append(kinds, r.Fault), append(uris, r.URI)
		}
		return kinds, uris
	}
	a, uris := run(9)
	counts := map[string]int{}
	for i, k := range a {
		counts[k]++
		if k == FaultMalformed && strings.HasPrefix(uris[i], "/web/") {
			t.Errorf("request %d, a replay, malformed", i)
		}
	}
	for _, k := range faultNames[1:] {
		if counts[k] < 10 {
			t.Errorf("fault %q seen %d times in %d: %v", k, counts[k], len(a), counts)
		}
	}
	if rate := 1 - float64(counts[""])/float64(len(a)); rate < 0.24 || rate > 0.36 {
		t.Errorf("total fault rate %.2f, want about 0.3: %v", rate, counts)
	}
	if b, _ := run(9); !slices.Equal(a, b) {
		t.Errorf("same seed, other faults")
	}
	if err := (&Server{}).SetFaults(Mix(1.2, 0)); err == nil {
		t.Errorf("a mix at rate 1.2 accepted")
	}
}

// TestCheckRate: arrivals k apart must be k intervals minus the slack
// apart. Expected: evenly spaced and late-by-less-than-slack arrivals
// pass; two arrivals closer than interval−slack, or a run of arrivals
// that gains more than the slack over many intervals, fail.
func TestCheckRate(t *testing.T) {
	at := func(ms ...int) []Request {
		var rs []Request
		for _, m := range ms {
			rs = append(rs, Request{Time: t0.Add(time.Duration(m) * time.Millisecond)})
		}
		return rs
	}
	iv, slack := 100*time.Millisecond, 20*time.Millisecond
	for i, tc := range []struct {
		reqs []Request
		ok   bool
	}{
		{at(), true},
		{at(0, 100, 200, 300), true},
		{at(300, 0, 200, 100), true},           // order does not matter
		{at(0, 115, 200, 300), true},           // one arrival 15 ms late
		{at(0, 100, 200, 300, 350), false},     // 50 ms apart
		{at(0, 81, 162, 243, 324, 405), false}, // each gap within the slack, the run not: 5 intervals in 405 ms
		{at(0, 1000, 1001), false},
	} {
		if err := CheckRate(tc.reqs, iv, slack); (err == nil) != tc.ok {
			t.Errorf("case %d: %v", i, err)
		}
	}
}
