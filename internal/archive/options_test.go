package archive

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestTimeMapHostsOption: an empty Hosts allows only the TimeMap's host;
// a listed host is allowed.
func TestTimeMapHostsOption(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprintf(w, "<https://web.archive.org/web/2020/http://a/>; rel=\"memento\"; %[1]s,\n"+
			"<https://mirror.example.net/web/2020/http://a/>; rel=\"memento\"; %[1]s", memDate)
	})
	for _, tt := range []struct {
		hosts []string
		want  int
	}{{[]string{}, 0}, {[]string{"example.net"}, 1}, {nil, 1}} {
		got := 0
		err := ListTimeMap(context.Background(), srv.Client(), srv.URL+"/tm", TimeMapOptions{Hosts: tt.hosts}, func(Capture) error { got++; return nil })
		if got != tt.want || !errors.Is(err, ErrForeignHost) {
			t.Errorf("hosts %q: %d mementos, err %v; want %d and ErrForeignHost", tt.hosts, got, err, tt.want)
		}
	}
}

// TestListBoundOptions: each bound stops a listing with what it read and
// names itself; invalid bounds are refused before any request.
func TestListBoundOptions(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprint(w, cdxPage(100, "http://a/", fmt.Sprint("key-", n)))
	})
	tests := []struct {
		name  string
		opts  ListOptions
		rows  int
		cause error
		says  string
	}{
		// MaxRows stops in the middle of a page.
		{"rows", ListOptions{MaxRows: 250}, 250, nil, "row limit 250"},
		// MaxListBytes counts every page: 3 pages of about 3,140 bytes fit
		// in 10,000, then the 18 whole rows in the fourth page's first 583.
		{"list bytes", ListOptions{MaxListBytes: 10_000}, 318, ErrTooLarge, "listing over 10000 bytes"},
		// MaxPages.
		{"pages", ListOptions{MaxPages: 2}, 200, ErrPageLimit, "2 cdx pages"},
		// A shared budget lowers the row bound.
		{"budget", ListOptions{Budget: &Budget{Rows: 150, Bytes: 1 << 20}}, 150, nil, "row limit 150"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := 0
			err := List(context.Background(), srv.Client(), srv.URL, "a/*", tt.opts, func(Capture) error { got++; return nil })
			var le *ListError
			if !errors.As(err, &le) || !errors.Is(err, ErrTruncated) || got != tt.rows || le.Rows != int64(got) {
				t.Fatalf("%d captures, err %v; want %d and a *ListError", got, err, tt.rows)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err %v, want %v saying %q", err, tt.cause, tt.says)
			}
		})
	}
	for _, bad := range []ListOptions{{MaxRows: -1}, {MaxListBytes: -1}, {MaxFieldBytes: -1}} {
		if err := List(context.Background(), srv.Client(), srv.URL, "a/*", bad, func(Capture) error { return nil }); err == nil || errors.Is(err, ErrTruncated) {
			t.Errorf("options %+v: err %v, want refused", bad, err)
		}
	}
}

// TestBudgetShared: listings sharing a Budget deliver at most its rows
// together, and each takes what it used off it.
func TestBudgetShared(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Query().Get("showNumPages") == "true" {
			fmt.Fprint(w, `{"pages": 1}`)
			return
		}
		fmt.Fprint(w, strings.Repeat(`{"timestamp":"20240101000000","url":"http://a/"}`+"\n", 30))
	})
	b := &Budget{Rows: 50, Bytes: 1 << 20}
	total := 0
	var errs []error
	for range 3 {
		errs = append(errs, ListCommonCrawl(context.Background(), srv.Client(), srv.URL+"/x-index", "a/*", CCOptions{Budget: b}, func(Capture) error { total++; return nil }))
	}
	if total != 50 || b.Rows != 0 || errs[0] != nil || !errors.Is(errs[1], ErrTruncated) || !errors.Is(errs[2], ErrTruncated) {
		t.Errorf("delivered %d, budget left %d rows, errs %v; want 50, 0, [nil truncated truncated]", total, b.Rows, errs)
	}
}

// TestTimeMapRowBound: a TimeMap page with more mementos than MaxRows
// delivers MaxRows of them.
func TestTimeMapRowBound(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprint(w, "<http://a/>; rel=\"original\"")
		for i := range 1000 {
			fmt.Fprintf(w, ",\n<http://%s/web/2020%04d/http://a/>; rel=\"memento\"; %s", r.Host, i, memDate)
		}
	})
	got := 0
	err := ListTimeMap(context.Background(), srv.Client(), srv.URL+"/tm", TimeMapOptions{MaxRows: 10}, func(Capture) error { got++; return nil })
	if got != 10 || !errors.Is(err, ErrTruncated) {
		t.Errorf("%d mementos, err %v; want 10 and ErrTruncated", got, err)
	}
}

// FuzzScanCDXBounded: an answer cut at any byte bound delivers a prefix
// of the rows the whole answer gives, and says it hit the bound.
func FuzzScanCDXBounded(f *testing.F) {
	for _, name := range []string{"cdx_ia.json", "cdx_reordered.json", "cc_index.ndjson", "pywb.cdxj", "pywb_text.txt"} {
		f.Add(mustRead(f, name), uint16(100))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if len(data) > 1<<16 {
			return
		}
		whole, _, err := ParseCDXJSON(data, "http://b")
		if err != nil {
			return
		}
		var n int64
		body := &boundedReader{r: strings.NewReader(string(data)), left: int64(cut), n: &n}
		var part []Capture
		_, err = scanCDX(body, &rowSink{replay: waybackReplayPrefix("http://b"), emit: func(c Capture) error {
			part = append(part, c)
			return nil
		}})
		if len(part) > len(whole) || (err != nil) != body.hit && int(cut) < len(data) {
			t.Fatalf("cut at %d of %d: %d of %d rows, err %v, hit %v", cut, len(data), len(part), len(whole), err, body.hit)
		}
		for i := range part {
			if part[i] != whole[i] {
				t.Fatalf("row %d differs: %+v vs %+v", i, part[i], whole[i])
			}
		}
	})
}
