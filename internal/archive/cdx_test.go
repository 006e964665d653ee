package archive

import (
	"errors"
	"os"
	"testing"
	"time"
)

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseCDXJSONFixture(t *testing.T) {
	caps, key, err := ParseCDXJSON(mustRead(t, "cdx_ia.json"), "https://web.archive.org/")
	if err != nil {
		t.Fatal(err)
	}
	if want := "org%2Cexample%29%2Fnews%3Fid%3D1+20110102030405"; key != want {
		t.Errorf("resume key %q, want %q", key, want)
	}
	want := []Capture{
		{URL: "http://example.org:80/", Time: time.Date(2002, 1, 20, 14, 25, 10, 0, time.UTC), Status: 200, MIME: "text/html",
			Digest: "HHFEQ4JQ2ZHQOIVDYHVMAL3NUJIRKHP4", Length: 1792, Replay: "https://web.archive.org/web/20020120142510id_/http://example.org:80/"},
		{URL: "http://www.example.org/", Time: time.Date(2006, 3, 11, 8, 21, 46, 0, time.UTC), Status: 200, MIME: "text/html",
			Digest: "UDYHRGQVNPF6UIWWA3VBRRGJDKFBSMUA", Length: 681, Replay: "https://web.archive.org/web/20060311082146id_/http://www.example.org/"},
		// "-" status and length are unknown: 0.
		{URL: "http://example.org/about", Time: time.Date(2010, 6, 13, 7, 49, 31, 0, time.UTC), MIME: "text/html",
			Digest: "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", Replay: "https://web.archive.org/web/20100613074931id_/http://example.org/about"},
		// A 4-digit timestamp is the start of that year; the replay keeps the timestamp as given.
		{URL: "http://example.org/news?id=1", Time: time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC), Status: 200, MIME: "text/html",
			Digest: "JCW5BTNDNMVIWCUTFAIRABG7YLBW4BGQ", Length: 935, Replay: "https://web.archive.org/web/2011id_/http://example.org/news?id=1"},
	}
	if len(caps) != len(want) {
		t.Fatalf("got %d captures, want %d: %+v", len(caps), len(want), caps)
	}
	for i := range want {
		if caps[i] != want[i] {
			t.Errorf("capture %d:\n got %+v\nwant %+v", i, caps[i], want[i])
		}
	}
}

func TestParseCDXJSONFieldOrder(t *testing.T) {
	caps, key, err := ParseCDXJSON(mustRead(t, "cdx_reordered.json"), "")
	if err != nil || key != "" || len(caps) != 1 {
		t.Fatalf("got %+v, %q, %v", caps, key, err)
	}
	c := caps[0]
	if c.URL != "https://example.org/blog/" || c.Status != 301 || c.Length != 512 || c.Replay != "" ||
		!c.Time.Equal(time.Date(2019, 4, 3, 11, 22, 33, 0, time.UTC)) {
		t.Errorf("got %+v", c)
	}
}

func TestParseCDXJSONCases(t *testing.T) {
	hdr := `[["timestamp","original","statuscode"],`
	tests := []struct {
		name    string
		in      string
		n       int // captures expected
		key     string
		wantErr error // nil: success
	}{
		// Empty answers mean no captures.
		{"empty body", "", 0, "", nil},
		{"empty array", "[]\n", 0, "", nil},
		{"header only", `[["timestamp","original"]]`, 0, "", nil},
		// Numbers are tolerated where strings are expected.
		{"numeric cells", hdr + `[20200101000000,"http://a/",200]]`, 1, "", nil},
		// Impossible or implausible timestamps drop the row, not the page.
		{"bad month dropped", hdr + `["20201301000000","http://a/","200"],["20200101000000","http://a/","200"]]`, 1, "", nil},
		{"odd length dropped", hdr + `["2020010","http://a/","200"]]`, 0, "", nil},
		{"pre-web dropped", hdr + `["19800101000000","http://a/","200"]]`, 0, "", nil},
		{"future dropped", hdr + `["29990101000000","http://a/","200"]]`, 0, "", nil},
		// Resume key after the empty row.
		{"resume key", hdr + `["20200101000000","http://a/","200"],[],["k1"]]`, 1, "k1", nil},
		{"empty row without key", hdr + `["20200101000000","http://a/","200"],[]]`, 1, "", nil},
		// pywb NDJSON is accepted.
		{"pywb ndjson", `{"timestamp":"20200101000000","url":"http://a/","status":"200"}` + "\n", 1, "", nil},
		// Structural damage is an error.
		{"truncated", hdr + `["20200101000000","http://a/"`, 0, "", ErrMalformed},
		{"wrong arity", hdr + `["20200101000000","http://a/"]]`, 0, "", ErrMalformed},
		{"object cell", hdr + `["20200101000000",{},"200"]]`, 0, "", ErrMalformed},
		{"header not strings", `[[1,{}]]`, 0, "", ErrMalformed},
		{"not an array", `"hello"`, 0, "", ErrMalformed},
		// Plain text: space-delimited CDX lines by their field count, cdxj
		// lines, a resume key after a blank line; other lines are dropped,
		// and an answer of nothing else is an error.
		{"text output", "org,a)/ 20200101000000 http://a/ text/html 200 X 1\n", 1, "", nil},
		{"cdx 11 text", "org,a)/ 20200101000000 http://a/ text/html 200 X - - 1 2 f.warc.gz\n", 1, "", nil},
		{"text resume key", "org,a)/ 20200101000000 http://a/ text/html 200 X 1\n\nk2\n", 1, "k2", nil},
		{"cdxj", `org,a)/ 20200101000000 {"url": "http://a/", "status": 200}` + "\n", 1, "", nil},
		{"text short line dropped", "org,a)/ 20200101000000 http://a/\norg,a)/ 20200101000000 http://a/ text/html 200 X 1\n", 1, "", nil},
		{"text of nothing else", "hello world\n", 0, "", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps, key, err := ParseCDXJSON([]byte(tt.in), "")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil) != (err != nil) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if len(caps) != tt.n || key != tt.key {
				t.Errorf("got %d captures, key %q; want %d, %q", len(caps), key, tt.n, tt.key)
			}
		})
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"20200229235959", time.Date(2020, 2, 29, 23, 59, 59, 0, time.UTC), true},
		{"2020", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"202003", time.Date(2020, 3, 1, 0, 0, 0, 0, time.UTC), true},
		{"2020030412", time.Date(2020, 3, 4, 12, 0, 0, 0, time.UTC), true},
		{"20190229000000", time.Time{}, false}, // not a leap year
		{"20200101246000", time.Time{}, false},
		{"202", time.Time{}, false},
		{"20200101000000000", time.Time{}, false},
		{"2020-1-01", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := ParseTimestamp(tt.in)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if tt.ok && len(tt.in) == 14 && FormatTimestamp(got) != tt.in {
			t.Errorf("FormatTimestamp round trip of %q gave %q", tt.in, FormatTimestamp(got))
		}
	}
}

func FuzzParseCDXJSON(f *testing.F) {
	for _, name := range []string{"cdx_ia.json", "cdx_reordered.json", "cdx_empty.json", "cc_index.ndjson"} {
		f.Add(mustRead(f, name))
	}
	f.Add([]byte(`[["timestamp"],["2020"],[],["k"]]`))
	now := time.Now()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		caps, _, err := ParseCDXJSON(data, "http://b")
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, c := range caps {
			if !plausible(c.Time, now) || c.Status < 0 || c.Status > 999 || c.Length < 0 || c.Offset < 0 {
				t.Fatalf("implausible capture %+v", c)
			}
		}
	})
}
