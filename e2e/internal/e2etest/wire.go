package e2etest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"slices"
	"testing"
)

// Wire is what a page weighs on the wire: its bytes as sent without and
// with gzip.
type Wire struct{ Raw, Gzip int }

// FetchWire GETs url and returns the status, the body (decoded) and its
// weight on the wire; with gzip it asks for gzip and counts the bytes
// sent.
func FetchWire(t *testing.T, url string) (int, []byte, Wire) {
	t.Helper()
	var w Wire
	var body []byte
	status := 0
	for _, gz := range []bool{false, true} {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		if !gz {
			w.Raw, body, status = len(b), b, resp.StatusCode
			continue
		}
		w.Gzip = len(b)
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err == nil {
				_, err = io.ReadAll(zr)
			}
			if err != nil {
				t.Fatalf("GET %s: gzip body: %v", url, err)
			}
		}
	}
	return status, body, w
}

// LogWeight logs what protection added to pages (what names one, "a
// post"), raw and gzipped: the median page, and the mean.
func LogWeight(t *testing.T, what string, before, after []Wire) {
	t.Helper()
	median := func(ws []Wire, f func(Wire) int) int {
		v := make([]int, len(ws))
		for i, w := range ws {
			v[i] = f(w)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	mean := func(ws []Wire, f func(Wire) int) int {
		n := 0
		for _, w := range ws {
			n += f(w)
		}
		return n / len(ws)
	}
	raw, gz := func(w Wire) int { return w.Raw }, func(w Wire) int { return w.Gzip }
	t.Logf("%s on the wire, median (mean) of %d: raw %d B → %d B (+%d), gzip %d B → %d B (+%d); mean raw %d → %d, gzip %d → %d",
		what, len(before), median(before, raw), median(after, raw), median(after, raw)-median(before, raw),
		median(before, gz), median(after, gz), median(after, gz)-median(before, gz),
		mean(before, raw), mean(after, raw), mean(before, gz), mean(after, gz))
}
