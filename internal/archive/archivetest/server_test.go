package archivetest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2020, 5, 1, 12, 0, 0, 0, time.UTC)

func testCaptures() []Capture {
	return []Capture{
		{URL: "http://example.org/", Time: t0, Body: []byte("<html><BODY class=x>A</body></html>")},
		{URL: "http://www.example.org/", Time: t0.AddDate(0, 0, 1), Body: []byte("<html><BODY class=x>A</body></html>")},
		{URL: "https://example.org/", Time: t0.AddDate(0, 1, 0), Body: []byte("B")},
		{URL: "http://example.org/a", Time: t0.AddDate(1, 0, 0), Status: 404, Body: []byte("nf")},
		{URL: "http://example.org/img.png", Time: t0, MIME: "image/png", Body: []byte("png")},
		{URL: "http://sub.example.org/", Time: t0, Status: -1, Body: []byte("sub")},
		{URL: "http://example.org.uk/", Time: t0, Body: []byte("uk")},
	}
}

func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := New(testCaptures(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, s *Server, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := s.Client().Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func cdxRows(t *testing.T, s *Server, query string) [][]string {
	t.Helper()
	code, _, body := get(t, s, "/cdx/search/cdx?output=json&"+query)
	if code != 200 {
		t.Fatalf("%s: status %d: %s", query, code, body)
	}
	var rows [][]string
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		t.Fatalf("%s: %v in %q", query, err, body)
	}
	return rows
}

func TestCDXQueries(t *testing.T) {
	s := start(t, Config{})
	tests := []struct {
		query string
		want  int // data rows
	}{
		{"url=example.org/", 3},               // exact: scheme and www. ignored
		{"url=example.org/*", 5},              // prefix
		{"url=example.org*", 6},               // bare-host prefix reaches example.org.uk too, as on IA
		{"url=example.org&matchType=host", 5}, // host
		{"url=*.example.org", 6},              // domain includes sub.example.org
		{"url=example.org/*&filter=statuscode:200", 4},
		{"url=example.org/*&filter=!statuscode:200", 1},
		{"url=example.org/*&filter=mimetype:text/.*&filter=!statuscode:404", 3},
		{"url=example.org/&collapse=digest", 2},   // A A B -> A B
		{"url=example.org/&collapse=digest:1", 2}, // N… N… V… -> 2
		{"url=example.org/*&from=2021", 1},
		{"url=example.org/*&to=2020", 4},                       // to=2020 pads to the end of 2020
		{"url=example.org/*&from=202005021200&to=20200601", 2}, // to pads to the end of 1 June
		{"url=example.org/*&limit=2", 2},
		{"url=nowhere.org/*", 0},
	}
	for _, tt := range tests {
		rows := cdxRows(t, s, tt.query)
		got := max(len(rows)-1, 0)
		if got != tt.want {
			t.Errorf("%s: %d rows, want %d: %q", tt.query, got, tt.want, rows)
		}
	}
}

func TestCDXBadQueries(t *testing.T) {
	s := start(t, Config{})
	for _, q := range []string{"", "url=a&fl=bogus", "url=a&filter=bogus:1", "url=a&filter=statuscode:(", "url=a&filter=nocolon",
		"url=a&collapse=x", "url=a&collapse=digest:0", "url=a&from=20x", "url=a&limit=-1", "url=a&resumeKey=nope"} {
		if code, _, _ := get(t, s, "/cdx/search/cdx?"+q); code != 400 {
			t.Errorf("%q: status %d, want 400", q, code)
		}
	}
}

func TestCDXResumeAndText(t *testing.T) {
	s := start(t, Config{MaxRows: 2})
	// MaxRows caps an answer; showResumeKey adds an empty row and the key.
	rows := cdxRows(t, s, "url=example.org/*&showResumeKey=true&fl=timestamp,statuscode")
	if len(rows) != 5 || len(rows[3]) != 0 || len(rows[4]) != 1 || rows[0][0] != "timestamp" {
		t.Fatalf("rows %q", rows)
	}
	var all []string
	key := ""
	for range 10 {
		q := "/cdx/search/cdx?url=example.org/*&showResumeKey=true"
		if key != "" {
			q += "&resumeKey=" + key
		}
		code, _, body := get(t, s, q)
		if code != 200 {
			t.Fatalf("%s: %d", q, code)
		}
		lines := strings.Split(strings.TrimSpace(body), "\n")
		key = ""
		if n := len(lines); n >= 2 && lines[n-2] == "" {
			key, lines = lines[n-1], lines[:n-2]
		}
		all = append(all, lines...)
		if key == "" {
			break
		}
	}
	if len(all) != 5 || !strings.HasPrefix(all[0], "org,example)/ 20200501120000 http://example.org/ text/html 200 ") {
		t.Errorf("text listing %q", all)
	}
	// An unknown status is reported as "-".
	if rows := cdxRows(t, s, "url=sub.example.org/&fl=statuscode"); len(rows) != 2 || rows[1][0] != "-" {
		t.Errorf("unknown status rows %q", rows)
	}
}

func TestReplay(t *testing.T) {
	s := start(t, Config{})
	caps := testCaptures()
	// id_ returns the stored bytes exactly, with Memento headers.
	code, h, body := get(t, s, "/web/20200501120000id_/http://example.org/")
	if code != 200 || body != string(caps[0].Body) || h.Get("Memento-Datetime") != "Fri, 01 May 2020 12:00:00 GMT" {
		t.Errorf("id_: %d %q %v", code, body, h)
	}
	// Without id_ the toolbar follows the <body> tag, whatever its case.
	_, _, body = get(t, s, "/web/20200501120000/http://example.org/")
	if !strings.HasPrefix(body, "<html><BODY class=x>"+ToolbarBegin) || !strings.Contains(body, ToolbarEnd+"\nA</body>") {
		t.Errorf("rewritten: %q", body)
	}
	// Without a body tag the toolbar comes first.
	_, _, body = get(t, s, "/web/20200601120000/https://example.org/")
	if !strings.HasPrefix(body, ToolbarBegin) || !strings.HasSuffix(body, "B") {
		t.Errorf("rewritten without body: %q", body)
	}
	// A capture's status is replayed.
	if code, _, body := get(t, s, "/web/20210501120000id_/http://example.org/a"); code != 404 || body != "nf" {
		t.Errorf("404 capture: %d %q", code, body)
	}
	// An inexact timestamp redirects to the nearest capture (the client follows).
	if code, _, body := get(t, s, "/web/2020id_/http://example.org/img.png"); code != 200 || body != "png" {
		t.Errorf("nearest: %d %q", code, body)
	}
	if code, _, _ := get(t, s, "/web/2020id_/http://nowhere.org/"); code != 404 {
		t.Errorf("unknown URL: %d", code)
	}
}

func TestTimeMapServer(t *testing.T) {
	s := start(t, Config{TimeMapPageSize: 2})
	code, h, body := get(t, s, "/timemap/link/http://example.org/")
	if code != 200 || h.Get("Content-Type") != "application/link-format" {
		t.Fatalf("%d %v", code, h)
	}
	for _, want := range []string{`rel="original"`, `rel="self"`, `rel="timegate"`, `/timemap/page2/link/http://example.org/>; rel="timemap"`, `rel="first memento"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page 1 lacks %s:\n%s", want, body)
		}
	}
	_, _, body = get(t, s, "/timemap/page2/link/http://example.org/")
	if !strings.Contains(body, `rel="last memento"`) || !strings.Contains(body, "/timemap/link/http://example.org/>; rel=\"timemap\"") {
		t.Errorf("page 2:\n%s", body)
	}
	for _, p := range []string{"/timemap/page3/link/http://example.org/", "/timemap/link/http://nowhere.org/", "/timemap/page0/link/http://example.org/"} {
		if code, _, _ := get(t, s, p); code != 404 {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}

func TestCommonCrawlServer(t *testing.T) {
	s := start(t, Config{CCPageSize: 2})
	_, _, body := get(t, s, "/collinfo.json")
	if !strings.Contains(body, `"cdx-api":"`+s.URL+"/"+DefaultCrawl+`-index"`) {
		t.Errorf("collinfo %s", body)
	}
	idx := "/" + DefaultCrawl + "-index?output=json&url=example.org/*"
	if _, _, body := get(t, s, idx+"&showNumPages=true"); !strings.HasPrefix(body, `{"pages": 3, "pageSize": 2`) {
		t.Errorf("num pages %s", body)
	}
	_, _, body = get(t, s, idx+"&page=2")
	if n := strings.Count(body, "\n"); n != 1 || !strings.Contains(body, `"filename":"crawl-data/`) {
		t.Errorf("page 2: %q", body)
	}
	if code, _, _ := get(t, s, idx+"&page=3"); code != 400 {
		t.Errorf("page 3: %d, want 400", code)
	}
	if code, _, _ := get(t, s, "/"+DefaultCrawl+"-index?output=json&url=nowhere.org/*"); code != 404 {
		t.Errorf("no captures: %d, want 404", code)
	}
	if code, _, _ := get(t, s, "/CC-MAIN-1999-01-index?url=example.org/"); code != 404 {
		t.Errorf("unknown crawl: %d, want 404", code)
	}
}

func TestFaults(t *testing.T) {
	s := start(t, Config{Faults: Faults{SlowBody: time.Millisecond, SlowChunk: 3}})
	// A slow body still arrives whole.
	if _, _, body := get(t, s, "/web/20200501120000id_/http://example.org/"); body != string(testCaptures()[0].Body) {
		t.Errorf("slow body %q", body)
	}
	// A seeded mix: every request is logged with its fault.
	if err := s.SetFaults(Faults{Throttle: 0.3, Unavailable: 0.3, Reset: 0.2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for range 100 {
		resp, err := s.Client().Get(s.URL + "/collinfo.json")
		if err == nil {
			if ra := resp.Header.Get("Retry-After"); resp.StatusCode != 200 && ra != "1" {
				t.Errorf("status %d with Retry-After %q", resp.StatusCode, ra)
			}
			resp.Body.Close()
		}
	}
	for _, r := range s.Requests()[1:] {
		counts[r.Fault]++
	}
	for _, f := range []string{"", "429", "503", "reset"} {
		if counts[f] < 5 {
			t.Errorf("fault %q seen %d times in 100: %v", f, counts[f], counts)
		}
	}
	for _, bad := range []Faults{{Throttle: -0.1}, {Throttle: 0.6, Reset: 0.6}, {RetryAfter: -1}} {
		if err := s.SetFaults(bad); err == nil {
			t.Errorf("SetFaults(%+v) accepted", bad)
		}
	}
}

func TestMaxInWindow(t *testing.T) {
	at := func(secs ...int) []Request {
		var rs []Request
		for _, s := range secs {
			rs = append(rs, Request{Time: t0.Add(time.Duration(s) * time.Second)})
		}
		return rs
	}
	tests := []struct {
		reqs []Request
		d    time.Duration
		want int
	}{
		{nil, time.Second, 0},
		{at(0), time.Second, 1},
		{at(0, 1, 2, 3), time.Second, 2},             // window closed on both ends
		{at(3, 0, 2, 1), 1500 * time.Millisecond, 2}, // order does not matter
		{at(0, 10, 11, 12, 30), 2 * time.Second, 3},
		{at(0, 0, 0), 0, 3},
	}
	for i, tt := range tests {
		if got := MaxInWindow(tt.reqs, tt.d); got != tt.want {
			t.Errorf("case %d: got %d, want %d", i, got, tt.want)
		}
	}
}

func TestNewValidates(t *testing.T) {
	for i, tc := range []struct {
		caps []Capture
		cfg  Config
	}{
		{[]Capture{{URL: "http://a/"}}, Config{}}, // no time
		{[]Capture{{Time: t0}}, Config{}},         // no URL
		{nil, Config{MaxRows: -1}},
		{nil, Config{Faults: Faults{Reset: 2}}},
	} {
		if s, err := New(tc.caps, tc.cfg); err == nil {
			s.Close()
			t.Errorf("case %d accepted", i)
		}
	}
}

func TestSURT(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.Example.org:80/A?b=1": "org,example)/a?b=1",
		"https://sub.example.org":         "org,example,sub)/",
		"example.org/x":                   "org,example)/x",
	} {
		if got := surt(in); got != want {
			t.Errorf("surt(%q) = %q, want %q", in, got, want)
		}
	}
}
