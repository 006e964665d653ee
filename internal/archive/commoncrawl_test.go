package archive

import (
	"errors"
	"testing"
	"time"
)

func TestParseCollInfo(t *testing.T) {
	crawls, err := ParseCollInfo(mustRead(t, "collinfo.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Crawl{
		{ID: "CC-MAIN-2024-10", Name: "February/March 2024 Index", TimeGate: "https://index.commoncrawl.org/CC-MAIN-2024-10/", CDXAPI: "https://index.commoncrawl.org/CC-MAIN-2024-10-index"},
		{ID: "CC-MAIN-2023-50", Name: "November/December 2023 Index", TimeGate: "https://index.commoncrawl.org/CC-MAIN-2023-50/", CDXAPI: "https://index.commoncrawl.org/CC-MAIN-2023-50-index"},
	}
	if len(crawls) != len(want) || crawls[0] != want[0] || crawls[1] != want[1] {
		t.Errorf("got %+v", crawls)
	}
	for _, bad := range []string{`{}`, `[{"id":"x"}]`, `[{"cdx-api":"http://a"}]`, `[`, ``} {
		if _, err := ParseCollInfo([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseCollInfo(%q) err %v, want ErrMalformed", bad, err)
		}
	}
}

func TestParseCCIndexFixture(t *testing.T) {
	caps, err := ParseCCIndex(mustRead(t, "cc_index.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Capture{
		{URL: "https://example.org/", Time: time.Date(2024, 2, 24, 16, 5, 19, 0, time.UTC), Status: 200, MIME: "text/html",
			Digest: "VPV4RBUOGIMLJQF6LKKSSQ6QFQKBX3YS", Length: 2183, Offset: 110853632,
			File: "crawl-data/CC-MAIN-2024-10/segments/1707947474533.12/warc/CC-MAIN-20240224112548-20240224142548-00545.warc.gz"},
		{URL: "https://example.org/about", Time: time.Date(2024, 2, 27, 1, 2, 3, 0, time.UTC), Status: 301, MIME: "text/html",
			Digest: "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", Length: 597, Offset: 851,
			File: "crawl-data/CC-MAIN-2024-10/segments/1707947474533.12/crawldiagnostics/CC-MAIN-20240224112548-20240224142548-00001.warc.gz"},
	}
	if len(caps) != len(want) {
		t.Fatalf("got %d captures", len(caps))
	}
	for i := range want {
		if caps[i] != want[i] {
			t.Errorf("capture %d:\n got %+v\nwant %+v", i, caps[i], want[i])
		}
	}
}

func TestParseCCIndexCases(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int
		wantErr bool
	}{
		// Blank lines and unknown fields are ignored.
		{"blank lines", "\n" + `{"timestamp":"20240101000000","url":"http://a/","x":[1]}` + "\n\n", 1, false},
		// Missing or "-" numbers are 0, not errors.
		{"dash length", `{"timestamp":"20240101000000","url":"http://a/","length":"-","offset":"-1"}`, 1, false},
		// A line with a bad timestamp is dropped.
		{"bad timestamp", `{"timestamp":"2024x","url":"http://a/"}`, 0, false},
		{"empty", "  \n", 0, false},
		// Not NDJSON objects: an error.
		{"array", `[["timestamp"]]`, 0, true},
		{"broken line", `{"timestamp":"20240101000000"` + "\n" + `{"url":`, 0, true},
		{"no captures message", `No Captures found for: example.org/*`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps, err := ParseCCIndex([]byte(tt.in))
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrMalformed)) {
				t.Fatalf("err %v, wantErr %v", err, tt.wantErr)
			}
			if len(caps) != tt.n {
				t.Errorf("got %d captures, want %d", len(caps), tt.n)
			}
		})
	}
}

func FuzzParseCCIndex(f *testing.F) {
	f.Add(mustRead(f, "cc_index.ndjson"))
	f.Add(mustRead(f, "collinfo.json"))
	f.Add([]byte(`{"timestamp":"2024","offset":"9223372036854775807","length":"1e3"}`))
	now := time.Now()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		caps, err := ParseCCIndex(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, c := range caps {
			if !plausible(c.Time, now) || c.Offset < 0 || c.Length < 0 || c.Status < 0 || c.Replay != "" {
				t.Fatalf("bad capture %+v", c)
			}
		}
		ParseCollInfo(data) // must not panic either
	})
}
