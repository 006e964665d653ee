package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// pywbServer starts a pywb collection holding caps.
func pywbServer(t *testing.T, caps []archivetest.Capture, p archivetest.PywbConfig) *archivetest.Server {
	t.Helper()
	return newServer(t, caps, archivetest.Config{Pywb: &p})
}

// listAll lists pattern at base and fails the test on an error.
func listAll(t *testing.T, doer Doer, base, pattern string, o ListOptions) []Capture {
	t.Helper()
	return collect(t, func(fn func(Capture) error) error {
		return List(context.Background(), doer, base, pattern, o, fn)
	})
}

// keys returns "URL TIMESTAMP" of each capture, sorted.
func keys(caps []Capture) []string {
	var out []string
	for _, c := range caps {
		out = append(out, c.URL+" "+FormatTimestamp(c.Time))
	}
	slices.Sort(out)
	return out
}

// TestListPywbAnswerShapes: a pywb collection's endpoint lists the HTML
// captures with status 200 in each of its answer shapes (NDJSON as asked,
// cdxj and text from servers that answer in one format), each with its
// replay URL in the collection, in one request.
func TestListPywbAnswerShapes(t *testing.T) {
	caps := siteCaptures(12)
	for _, output := range []string{"", "cdxj", "text"} {
		t.Run("output="+output, func(t *testing.T) {
			s := pywbServer(t, caps, archivetest.PywbConfig{Output: output})
			got := listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{})
			if len(got) != 12 {
				t.Fatalf("%d captures, want 12: %v", len(got), keys(got))
			}
			for _, c := range got {
				ts := FormatTimestamp(c.Time)
				if c.Status != 200 || c.MIME != "text/html" || c.Digest == "" || c.Source != "wayback" ||
					c.Replay != s.ReplayPrefix()+ts+"id_/"+c.URL {
					t.Fatalf("capture %+v", c)
				}
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// TestListPywbFilters: pywb reads filters its own way (a bare value is a
// substring, ~ a regular expression at the beginning): the listing keeps
// HTML and XHTML with status 200 and revisits of them, and drops the
// rest.
func TestListPywbFilters(t *testing.T) {
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	caps := []archivetest.Capture{
		{URL: "http://example.org/a.html", Time: at, MIME: "text/html", Body: []byte("a")},
		{URL: "http://example.org/b.xhtml", Time: at, MIME: "application/xhtml+xml", Body: []byte("b")},
		{URL: "http://example.org/c.png", Time: at, MIME: "image/png", Body: []byte("c")},
		{URL: "http://example.org/d.xhtml", Time: at, MIME: "application/xhtmlXxml", Body: []byte("d")},
		{URL: "http://example.org/e.html", Time: at, MIME: "text/html", Status: 404, Body: []byte("e")},
		{URL: "http://example.org/f.html", Time: at, MIME: "text/html; charset=utf-8", Body: []byte("f")},
		{URL: "http://example.org/g.html", Time: at, MIME: "text/htmlx", Body: []byte("g")},
		{URL: "http://example.org/h.html", Time: at, MIME: "text/html", Status: 2000, Body: []byte("h")},
		{URL: "http://example.org/a.html", Time: at.Add(time.Hour), Revisit: true, Body: []byte("a")},
	}
	s := pywbServer(t, caps, archivetest.PywbConfig{})
	got := keys(listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{}))
	want := []string{"http://example.org/a.html 20250301000000", "http://example.org/a.html 20250301010000",
		"http://example.org/b.xhtml 20250301000000", "http://example.org/f.html 20250301000000"}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
}

// TestListRechecksIgnoredFilters: a server that ignores the filters
// cannot feed the listing other types or statuses.
func TestListRechecksIgnoredFilters(t *testing.T) {
	ndjson := `{"urlkey": "org,example)/", "timestamp": "20250301000000", "url": "http://example.org/", "mime": "text/html", "status": "200", "digest": "A"}
{"urlkey": "org,example)/a.png", "timestamp": "20250301000000", "url": "http://example.org/a.png", "mime": "image/png", "status": "200", "digest": "B"}
{"urlkey": "org,example)/gone", "timestamp": "20250301000000", "url": "http://example.org/gone", "mime": "text/html", "status": "404", "digest": "C"}
{"urlkey": "org,example)/moved", "timestamp": "20250301000000", "url": "http://example.org/moved", "mime": "text/html", "status": "-", "digest": "D"}
{"urlkey": "org,example)/r", "timestamp": "20250301000000", "url": "http://example.org/r", "mime": "warc/revisit", "status": "-", "digest": "A"}
{"urlkey": "org,example)/r2", "timestamp": "20250301000000", "url": "http://example.org/r2", "mime": "warc/revisit", "status": "301", "digest": "E"}
`
	array := `[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],
["org,example)/","20250301000000","http://example.org/","text/html","200","A","1"],
["org,example)/a.png","20250301000000","http://example.org/a.png","image/png","200","B","1"],
["org,example)/gone","20250301000000","http://example.org/gone","text/html","404","C","1"]]
`
	for _, tt := range []struct {
		name, path, body string
		want             []string
	}{
		{"pywb", "/coll/cdx", ndjson, []string{"http://example.org/ 20250301000000", "http://example.org/r 20250301000000"}},
		{"wayback", "/cdx/search/cdx", array, []string{"http://example.org/ 20250301000000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			got := keys(listAll(t, srv.Client(), srv.URL+tt.path, "example.org/", ListOptions{}))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("listed %q, want %q", got, tt.want)
			}
		})
	}
}

// spread returns n HTML captures of five pages, one every 36 hours.
func spread(n int) []archivetest.Capture {
	t0 := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	var caps []archivetest.Capture
	for i := range n {
		caps = append(caps, archivetest.Capture{URL: fmt.Sprintf("http://example.org/p%d", i%5),
			Time: t0.Add(time.Duration(i) * 36 * time.Hour), Body: []byte(fmt.Sprint("page ", i))})
	}
	return caps
}

// TestListPywbCapWorkaround: pywb cuts an answer at the limit without a
// word; a page that holds exactly the limit is taken as cut, and the
// listing asks again over narrower time ranges until no answer is cut,
// delivering every capture exactly once.
func TestListPywbCapWorkaround(t *testing.T) {
	for _, limit := range []int{2, 5, 7, 39, 40} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			s := pywbServer(t, spread(40), archivetest.PywbConfig{})
			got := keys(listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{Limit: limit}))
			want := keys(listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{}))
			if len(want) != 40 || !slices.Equal(got, want) {
				t.Fatalf("listed %d captures (%d without a limit), want 40 exactly once: %q", len(got), len(want), got)
			}
			t.Logf("limit %d: %d requests", limit, len(s.Requests())-1)
		})
	}
}

// TestListPywbDefaultCap: without a limit of its own, the listing sends
// one; a server cutting there is worked around too.
func TestListPywbDefaultCap(t *testing.T) {
	s := pywbServer(t, spread(40), archivetest.PywbConfig{DefaultLimit: 6})
	got := listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{})
	if len(got) != 40 {
		t.Fatalf("listed %d captures, want 40", len(got))
	}
	if uri := s.Requests()[0].URI; !strings.Contains(uri, "limit=") {
		t.Fatalf("first request %s sends no limit", uri)
	}
}

// TestListPywbCapOneSecond: more captures than the limit within one
// second cannot be told apart by time: that second is asked again with
// twice the limit.
func TestListPywbCapOneSecond(t *testing.T) {
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var same []archivetest.Capture
	for i := range 8 {
		same = append(same, archivetest.Capture{URL: fmt.Sprintf("http://example.org/p%d", i), Time: at, Body: []byte{byte(i)}})
	}
	s := pywbServer(t, same, archivetest.PywbConfig{})
	if got := keys(listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{Limit: 3})); len(got) != 8 || len(slices.Compact(got)) != 8 {
		t.Fatalf("listed %q, want 8 captures once each", got)
	}
	alone := slices.ContainsFunc(s.Requests(), func(r archivetest.Request) bool {
		return strings.Contains(r.URI, "from=20200101000000&") && strings.Contains(r.URI, "to=20200101000000&") && strings.Contains(r.URI, "limit=12&")
	})
	if !alone {
		t.Fatalf("requests %v: none asks for the second alone with limit 12", s.Requests())
	}
}

// TestListPywbCapReported: when the narrowing cannot finish within the
// page bound, or a cut answer is not in index order (its last row does
// not mark what it delivered), the listing says it was cut, after
// delivering what it read, each capture once.
func TestListPywbCapReported(t *testing.T) {
	s := pywbServer(t, spread(40), archivetest.PywbConfig{})
	unordered := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"urlkey": "org,example)/b", "timestamp": "20200101000000", "url": "http://example.org/b", "mime": "text/html", "status": "200"}
{"urlkey": "org,example)/a", "timestamp": "20200101000000", "url": "http://example.org/a", "mime": "text/html", "status": "200"}
`)
	}))
	defer unordered.Close()
	for _, tt := range []struct {
		name     string
		endpoint string
		o        ListOptions
		cause    error
		want     string
	}{
		{"page bound", s.CDXEndpoint(), ListOptions{Limit: 5, MaxPages: 3}, ErrPageLimit, "3 cdx pages"},
		{"out of order", unordered.URL + "/coll/cdx", ListOptions{Limit: 2}, nil, "not in index order"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []Capture
			err := List(context.Background(), http.DefaultClient, tt.endpoint, "example.org/", tt.o, func(c Capture) error {
				got = append(got, c)
				return nil
			})
			var le *ListError
			if !errors.As(err, &le) || !errors.Is(err, ErrTruncated) || tt.cause != nil && !errors.Is(err, tt.cause) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want a listing truncated for %q", err, tt.want)
			}
			if le.Rows != int64(len(got)) || len(got) == 0 || len(slices.Compact(keys(got))) != len(got) {
				t.Fatalf("delivered %d captures (error says %d): %q", len(got), le.Rows, keys(got))
			}
		})
	}
}

// TestListPywbRevisits: revisit rows are captures of their own date; the
// replay serves the payload they point to. Their listed length is the
// revisit record's, not the page's, so it is not reported.
func TestListPywbRevisits(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	body := []byte("<html><body>same</body></html>")
	caps := []archivetest.Capture{
		{URL: "http://example.org/", Time: t0, Body: body},
		{URL: "http://example.org/", Time: t0.AddDate(0, 1, 0), Revisit: true, Body: body},
	}
	s := pywbServer(t, caps, archivetest.PywbConfig{})
	got := listAll(t, s.Client(), s.CDXEndpoint(), "example.org/", ListOptions{})
	if len(got) != 2 || !got[1].Time.Equal(t0.AddDate(0, 1, 0)) || got[1].MIME != "warc/revisit" || got[1].Length != 0 || got[0].Length != int64(len(body)) {
		t.Fatalf("listed %+v", got)
	}
	for _, c := range got {
		rc, _, err := Open(context.Background(), s.Client(), c.Replay)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != string(body) {
			t.Fatalf("%s replays %q", c.Replay, b)
		}
	}
}

// waybackAt serves an IA-style CDX server's answers at path.
func waybackAt(t *testing.T, s *archivetest.Server, path string) *httptest.Server {
	t.Helper()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		resp, err := s.Client().Get(s.URL + "/cdx/search/cdx?" + r.URL.RawQuery)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(front.Close)
	return front
}

// TestListDetectsDialect: the endpoint's form says which dialect to speak
// first; an answer of the other dialect's shape makes the listing ask
// again in that dialect, once, delivering nothing of the misread answer.
func TestListDetectsDialect(t *testing.T) {
	caps := siteCaptures(12)
	want := keys(listAll(t, http.DefaultClient, newServer(t, caps, archivetest.Config{}).URL, "example.org/", ListOptions{}))
	if len(want) != 12 {
		t.Fatalf("the Wayback lists %d captures, want 12", len(want))
	}
	ia := newServer(t, caps, archivetest.Config{})
	pywbAtIAPath := pywbServer(t, caps, archivetest.PywbConfig{Coll: "cdx", CDXEndpoint: "/search/cdx"})
	for _, tt := range []struct {
		name string
		base string
		want int // requests
	}{
		{"wayback base", ia.URL, 1},
		{"pywb endpoint", pywbServer(t, caps, archivetest.PywbConfig{}).CDXEndpoint(), 1},
		{"pywb -index endpoint", pywbServer(t, caps, archivetest.PywbConfig{Coll: "c", CDXEndpoint: "-index"}).CDXEndpoint(), 1},
		{"pywb at the wayback's path", pywbAtIAPath.URL, 2},
		{"wayback at a pywb path", waybackAt(t, ia, "/coll/cdx").URL + "/coll/cdx", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var n int
			counter := doerFunc(func(r *http.Request) (*http.Response, error) {
				n++
				return http.DefaultClient.Do(r)
			})
			got := keys(listAll(t, counter, tt.base, "example.org/", ListOptions{}))
			if !slices.Equal(got, want) {
				t.Fatalf("listed %q, want %q", got, want)
			}
			if n != tt.want {
				t.Errorf("%d requests, want %d", n, tt.want)
			}
		})
	}
}

// doerFunc is a Doer made of a function.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// TestListWaybackQueryUnchanged: a Wayback base gets exactly the query it
// always got.
func TestListWaybackQueryUnchanged(t *testing.T) {
	s := newServer(t, siteCaptures(3), archivetest.Config{})
	listAll(t, s.Client(), s.URL, "example.org/", ListOptions{})
	const want = "/cdx/search/cdx?collapse=digest&filter=statuscode%3A200&filter=mimetype%3Atext%2Fhtml%7Capplication%2Fxhtml%5C%2Bxml" +
		"&fl=urlkey%2Ctimestamp%2Coriginal%2Cmimetype%2Cstatuscode%2Cdigest%2Clength&matchType=prefix&output=json&showResumeKey=true&url=example.org%2F"
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].URI != want {
		t.Fatalf("requests %+v, want one of %s", reqs, want)
	}
}
