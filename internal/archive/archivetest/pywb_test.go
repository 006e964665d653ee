package archivetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// pywbCaptures are testCaptures plus a revisit of the first page a day
// after its second capture, and a revisit whose original is not
// archived.
func pywbCaptures() []Capture {
	caps := testCaptures()
	return append(caps,
		Capture{URL: "http://example.org/", Time: t0.AddDate(0, 0, 2), Revisit: true, Body: caps[0].Body},
		Capture{URL: "http://example.org/lost", Time: t0, Revisit: true, Body: []byte("never stored")},
	)
}

func startPywb(t *testing.T, p PywbConfig) *Server {
	t.Helper()
	s, err := New(pywbCaptures(), Config{Pywb: &p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// pywbLines asks the collection's CDX API and returns the answer's lines.
func pywbLines(t *testing.T, s *Server, query string) []string {
	t.Helper()
	path := strings.TrimPrefix(s.CDXEndpoint(), s.URL)
	code, _, body := get(t, s, path+"?"+query)
	if code != 200 {
		t.Fatalf("%s: status %d: %s", query, code, body)
	}
	if body == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(body, "\n"), "\n")
}

// pywbObjects asks with output=json and decodes the NDJSON lines.
func pywbObjects(t *testing.T, s *Server, query string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, line := range pywbLines(t, s, "output=json&"+query) {
		var m map[string]string
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: line %q: %v", query, line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestPywbEndpoints(t *testing.T) {
	for _, tt := range []struct {
		cfg        PywbConfig
		cdx, local string
	}{
		{PywbConfig{}, "/coll/cdx", "/coll/"},
		{PywbConfig{Coll: "ukwa", CDXEndpoint: "-index"}, "/ukwa-index", "/ukwa/"},
		{PywbConfig{Coll: "web", CDXEndpoint: "-cdx"}, "/web-cdx", "/web/"},
	} {
		s := startPywb(t, tt.cfg)
		if s.CDXEndpoint() != s.URL+tt.cdx || s.ReplayPrefix() != s.URL+tt.local {
			t.Errorf("%+v: endpoint %s, replay %s", tt.cfg, s.CDXEndpoint(), s.ReplayPrefix())
		}
		if code, _, body := get(t, s, tt.cdx+"?url=example.org/&output=json"); code != 200 || strings.Count(body, "\n") != 4 {
			t.Errorf("%s: status %d, %q", tt.cdx, code, body)
		}
		// The Wayback's paths are not pywb's.
		for _, p := range []string{"/cdx/search/cdx?url=example.org/", "/web/2020id_/http://example.org/"} {
			if code, _, _ := get(t, s, p); code != 404 && !strings.HasPrefix(tt.local, "/web/") {
				t.Errorf("%s: status %d, want 404", p, code)
			}
		}
	}
	if _, err := New(nil, Config{Pywb: &PywbConfig{DefaultLimit: -1}}); err == nil {
		t.Error("a negative default limit was accepted")
	}
}

func TestPywbOutputs(t *testing.T) {
	s := startPywb(t, PywbConfig{})
	objs := pywbObjects(t, s, "url=http://example.org/a")
	if len(objs) != 1 || objs[0]["url"] != "http://example.org/a" || objs[0]["status"] != "404" || objs[0]["mime"] != "text/html" ||
		objs[0]["urlkey"] != "org,example)/a" || objs[0]["length"] != "2" || objs[0]["filename"] == "" {
		t.Fatalf("json: %v", objs)
	}
	cdxj := pywbLines(t, s, "url=http://example.org/a")
	if len(cdxj) != 1 || !strings.HasPrefix(cdxj[0], "org,example)/a 20210501120000 {\"url\": \"http://example.org/a\", \"mime\": \"text/html\", \"status\": \"404\"") {
		t.Fatalf("cdxj: %q", cdxj)
	}
	text := pywbLines(t, s, "url=http://example.org/a&output=text&fl=timestamp,status,url")
	if len(text) != 1 || text[0] != "20210501120000 404 http://example.org/a" {
		t.Fatalf("text: %q", text)
	}
	if text := pywbLines(t, s, "url=http://example.org/a&output=text"); len(text) != 1 || text[0] != cdxj[0] {
		t.Fatalf("text without fields: %q, want the cdxj line", text)
	}
	// pywb prints fields by their own names: the Wayback's are left out
	// of JSON and are "-" in text.
	objs = pywbObjects(t, s, "url=http://example.org/a&fl=timestamp,statuscode,mimetype,original")
	if len(objs) != 1 || len(objs[0]) != 1 || objs[0]["timestamp"] == "" {
		t.Fatalf("json with the Wayback's names: %v", objs)
	}
	if text := pywbLines(t, s, "url=http://example.org/a&output=text&fields=timestamp,statuscode"); text[0] != "20210501120000 -" {
		t.Fatalf("text with the Wayback's names: %q", text)
	}
	if code, _, _ := get(t, s, "/coll/cdx?url=a&output=xml"); code != 400 {
		t.Errorf("output=xml: status %d, want 400", code)
	}
	// A server that knows one format answers in it whatever is asked.
	s = startPywb(t, PywbConfig{Output: "cdxj"})
	if got := pywbLines(t, s, "url=http://example.org/a&output=json"); len(got) != 1 || got[0] != cdxj[0] {
		t.Fatalf("forced cdxj: %q", got)
	}
}

func TestPywbQueries(t *testing.T) {
	s := startPywb(t, PywbConfig{})
	tests := []struct {
		query string
		want  int
	}{
		{"url=example.org/", 4},  // exact is the default: the revisit counts
		{"url=example.org/*", 7}, // wildcard prefix
		{"url=example.org/&matchType=prefix", 7},
		{"url=example.org&matchType=host", 7},
		{"url=*.example.org", 8},
		{"url=example.org/*&filter=mime:html", 4},                                         // contains
		{"url=example.org/*&filter=mime:tml", 4},                                          // contains, anywhere
		{"url=example.org/*&filter==mime:text/html", 4},                                   // exact
		{"url=example.org/*&filter==mime:text/htm", 0},                                    // exact, whole field
		{"url=example.org/*&filter=~mime:text/", 4},                                       // regex at the beginning
		{"url=example.org/*&filter=~mime:html", 0},                                        // not a search
		{"url=example.org/*&filter=~mime:text/h$", 0},                                     // $ anchors the end
		{"url=example.org/*&filter=!mime:html", 3},                                        // negated contains
		{"url=example.org/*&filter=!=status:200", 3},                                      // 404 and two revisits ("-")
		{"url=example.org/*&filter=!~status:2", 3},                                        // negated regex
		{"url=example.org/*&filter=statuscode:200", 4},                                    // alias
		{"url=example.org/*&filter=mimetype:text/html|application/xhtml\\%2Bxml", 0},      // the Wayback's regex, read as a substring
		{"url=example.org/*&filter=~mimetype:(?:text/html|application/xhtml\\%2Bxml)", 4}, // ... and as pywb's
		{"url=example.org/*&filter=~mime:warc/revisit", 2},
		{"url=example.org/*&filter=org,example)/a%202021", 1}, // no field: the whole line
		{"url=example.org/*&from=2021", 1},
		{"url=example.org/*&to=2020", 6},
		{"url=example.org/*&from=202005021200&to=20200601", 3},
		{"url=example.org/*&limit=2", 2},
		{"url=nowhere.org/*", 0},
	}
	for _, tt := range tests {
		if got := len(pywbLines(t, s, tt.query)); got != tt.want {
			t.Errorf("%s: %d rows, want %d", tt.query, got, tt.want)
		}
	}
	for _, q := range []string{"", "output=json", "url=a&filter=~mime:(", "url=a&limit=0", "url=a&limit=x", "url=a&from=20x", "url=a&closest=x"} {
		if code, _, _ := get(t, s, "/coll/cdx?"+q); code != 400 {
			t.Errorf("%q: status %d, want 400", q, code)
		}
	}
}

// TestPywbLimitSilent: without limit= an answer is cut at the default
// limit, and nothing says so: no resume key, even when asked for one.
func TestPywbLimitSilent(t *testing.T) {
	s := startPywb(t, PywbConfig{DefaultLimit: 3})
	if got := pywbLines(t, s, "url=example.org/*&showResumeKey=true"); len(got) != 3 {
		t.Fatalf("%d rows, want the default limit 3: %q", len(got), got)
	}
	if got := pywbLines(t, s, "url=example.org/*&limit=5&showResumeKey=true"); len(got) != 5 {
		t.Fatalf("%d rows with limit=5: %q", len(got), got)
	}
	// The last limit= counts, as in pywb (its front end appends query_limit).
	if got := pywbLines(t, s, "url=example.org/*&limit=5&limit=1"); len(got) != 1 {
		t.Fatalf("%d rows with limit=5&limit=1", len(got))
	}
}

func TestPywbSort(t *testing.T) {
	s := startPywb(t, PywbConfig{})
	fwd := pywbObjects(t, s, "url=example.org/")
	rev := pywbObjects(t, s, "url=example.org/&sort=reverse&limit=2")
	if len(rev) != 2 || rev[0]["timestamp"] != fwd[len(fwd)-1]["timestamp"] || rev[1]["timestamp"] != fwd[len(fwd)-2]["timestamp"] {
		t.Fatalf("reverse %v of %v", rev, fwd)
	}
	near := pywbObjects(t, s, "url=example.org/&sort=closest&closest=20200602&limit=1")
	if len(near) != 1 || near[0]["timestamp"] != "20200601120000" {
		t.Fatalf("closest: %v", near)
	}
}

func TestPywbRevisits(t *testing.T) {
	s := startPywb(t, PywbConfig{})
	objs := pywbObjects(t, s, "url=example.org/&filter==mime:warc/revisit")
	if len(objs) != 1 || objs[0]["status"] != "-" || objs[0]["length"] != fmt.Sprint(RevisitLength) || objs[0]["digest"] != Digest(testCaptures()[0].Body) {
		t.Fatalf("revisit rows: %v", objs)
	}
	resolved := pywbObjects(t, s, "url=example.org/&resolveRevisits=true&from=20200503&to=20200503")
	if len(resolved) != 1 || resolved[0]["mime"] != "text/html" || resolved[0]["status"] != "200" {
		t.Fatalf("resolved revisit: %v", resolved)
	}
	// Replay of the revisit serves the original's payload.
	code, h, body := get(t, s, "/coll/20200503120000id_/http://example.org/")
	if code != 200 || body != string(testCaptures()[0].Body) || h.Get("Content-Type") != "text/html" {
		t.Fatalf("revisit replay: %d %q %q", code, h.Get("Content-Type"), body)
	}
	if code, _, _ := get(t, s, "/coll/20200501120000id_/http://example.org/lost"); code != 404 {
		t.Fatalf("revisit without an original: status %d, want 404", code)
	}
}

func TestPywbReplay(t *testing.T) {
	s := startPywb(t, PywbConfig{})
	code, _, body := get(t, s, "/coll/20200501120000id_/http://example.org/")
	if code != 200 || body != "<html><BODY class=x>A</body></html>" {
		t.Fatalf("id_: %d %q", code, body)
	}
	code, _, body = get(t, s, "/coll/20200501120000/http://example.org/")
	if code != 200 || !strings.Contains(body, PywbInsertBegin) || strings.Contains(body, ToolbarBegin) {
		t.Fatalf("rewritten: %d %q", code, body)
	}
	c := s.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(s.URL + "/coll/2020id_/http://example.org/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 || resp.Header.Get("Location") != s.URL+"/coll/20210501120000id_/http://example.org/a" {
		t.Fatalf("nearest: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestPywbEscapes: query values reach the filters decoded.
func TestPywbEscapes(t *testing.T) {
	s := startPywb(t, PywbConfig{})
	q := url.Values{"url": {"example.org/*"}, "filter": {`~mime:application/xhtml\+xml|text/html`}}
	if got := len(pywbLines(t, s, q.Encode())); got != 4 {
		t.Fatalf("%d rows, want 4", got)
	}
}
