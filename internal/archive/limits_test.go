package archive

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// hostile starts a loopback server whose handler gets the 1-based number
// of each request; it returns the server and its request counter.
func hostile(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var count atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r, int(count.Add(1)))
	}))
	t.Cleanup(srv.Close)
	return srv, &count
}

// cdxPage returns a CDX JSON answer of rows copies of one row, ending with
// resume key key (none if empty).
func cdxPage(rows int, original, key string) string {
	var b strings.Builder
	b.WriteString(`[["timestamp","original"]`)
	for range rows {
		fmt.Fprintf(&b, `,["20200101000000",%q]`, original)
	}
	if key != "" {
		fmt.Fprintf(&b, `,[],[%q]`, key)
	}
	b.WriteString("]")
	return b.String()
}

// wantTruncated fails unless err reports a truncated listing.
func wantTruncated(t *testing.T, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "listing truncated at") {
		t.Errorf("err %v, want a listing truncated at a bound", err)
	}
}

// TestListEndlessResumeKeys: a CDX server handing out a new resume key on
// every page must not keep the listing going for DefaultMaxPages pages
// when the pages are empty, and at most that many when they are not.
func TestListEndlessResumeKeys(t *testing.T) {
	tests := []struct {
		name     string
		rows     int
		requests int64 // pages fetched before the listing stops
	}{
		// Empty pages: stop after MaxEmptyPages (10) of them.
		{"empty pages", 0, 10},
		// One capture a page: stop at DefaultMaxPages (200).
		{"one row a page", 1, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, count := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
				fmt.Fprint(w, cdxPage(tt.rows, "http://a/", fmt.Sprint("key-", n)))
			})
			got := 0
			err := List(context.Background(), srv.Client(), srv.URL, "a/*", ListOptions{}, func(Capture) error { got++; return nil })
			t.Logf("%d requests, %d captures, err %v", count.Load(), got, err)
			wantTruncated(t, err)
			if count.Load() != tt.requests || got != tt.rows*int(tt.requests) {
				t.Errorf("%d requests and %d captures, want %d and %d", count.Load(), got, tt.requests, tt.rows*int(tt.requests))
			}
		})
	}
}

// TestListDefaultRowBound: endless pages of 50,000 rows stop at
// DefaultMaxRows (500,000) captures, all of them delivered. The listing
// used to go on for 1,000 pages (50 million rows), which the caller
// retained: about 95 MiB per 30 MiB page.
func TestListDefaultRowBound(t *testing.T) {
	page := cdxPage(50_000, "http://a/", "")
	page = page[:len(page)-1] // reopen the array for the resume key
	srv, count := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprintf(w, `%s,[],["key-%d"]]`, page, n)
	})
	guard := errors.New("guard: far past the bound")
	got := 0
	err := List(context.Background(), srv.Client(), srv.URL, "a/*", ListOptions{}, func(Capture) error {
		if got++; got > 600_000 {
			return guard
		}
		return nil
	})
	t.Logf("%d requests, %d captures, err %v", count.Load(), got, err)
	wantTruncated(t, err)
	if got != 500_000 {
		t.Errorf("delivered %d captures, want 500000", got)
	}
	if err != nil && !strings.Contains(err.Error(), "at 500000 rows") {
		t.Errorf("err %v does not name the row count", err)
	}
}

// TestListOverlongFields: a row with an absurdly long field is dropped
// and counted; the rows beside it are delivered.
func TestListOverlongFields(t *testing.T) {
	long := "http://a/" + strings.Repeat("x", 1<<20)
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprintf(w, `[["timestamp","original"],["20200101000000","http://a/1"],["20200101000000",%q],["20200101000000","http://a/2"]]`, long)
	})
	var urls []string
	err := List(context.Background(), srv.Client(), srv.URL, "a/*", ListOptions{}, func(c Capture) error {
		urls = append(urls, c.URL)
		return nil
	})
	for _, u := range urls {
		if len(u) > 8192 {
			t.Errorf("delivered a %d-byte URL", len(u))
		}
	}
	if len(urls) != 2 || err == nil || !strings.Contains(err.Error(), "1 rows dropped for a field over 8192 bytes") {
		t.Errorf("delivered %d captures, err %v; want 2 and one row dropped", len(urls), err)
	}
}

// TestListOverlongResumeKey: a resume key longer than the field bound
// ends the listing instead of being sent back.
func TestListOverlongResumeKey(t *testing.T) {
	srv, count := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprint(w, cdxPage(1, "http://a/", strings.Repeat("k", 1<<20)))
	})
	got := 0
	err := List(context.Background(), srv.Client(), srv.URL, "a/*", ListOptions{}, func(Capture) error { got++; return nil })
	t.Logf("%d requests, %d captures, err %v", count.Load(), got, err)
	wantTruncated(t, err)
	if count.Load() != 1 || got != 1 {
		t.Errorf("%d requests, %d captures; want 1 and 1", count.Load(), got)
	}
}

// TestListAnswerTooLargeKeepsRows: an answer over MaxBytes is read up to
// the bound; the rows before it are delivered and the listing stops.
func TestListAnswerTooLargeKeepsRows(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprint(w, cdxPage(100_000, "http://a/", "")) // 3.1 MB
	})
	got := 0
	err := List(context.Background(), srv.Client(), srv.URL, "a/*", ListOptions{MaxBytes: 1 << 20}, func(Capture) error { got++; return nil })
	t.Logf("%d captures, err %v", got, err)
	wantTruncated(t, err)
	if !errors.Is(err, ErrTooLarge) || got < 30_000 || got > 34_000 {
		t.Errorf("%d captures, err %v; want about 33,000 and ErrTooLarge", got, err)
	}
}

// TestCommonCrawlHugePageCount: an index claiming a million pages is
// listed up to DefaultMaxPages, keeping the captures, instead of being
// refused whole.
func TestCommonCrawlHugePageCount(t *testing.T) {
	srv, count := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Query().Get("showNumPages") == "true" {
			fmt.Fprint(w, `{"pages": 1000000}`)
			return
		}
		fmt.Fprintf(w, `{"timestamp":"20240101000000","url":"http://a/%d","filename":"f","offset":"0","length":"1"}`+"\n", n)
	})
	got := 0
	err := ListCommonCrawl(context.Background(), srv.Client(), srv.URL+"/CC-index", "a/*", CCOptions{}, func(Capture) error { got++; return nil })
	t.Logf("%d requests, %d captures, err %v", count.Load(), got, err)
	wantTruncated(t, err)
	if got != 200 || !errors.Is(err, ErrPageLimit) {
		t.Errorf("%d captures, err %v; want 200 and ErrPageLimit", got, err)
	}
}

// TestCommonCrawlOverlongLine: an index line far longer than any real
// one is dropped, the others delivered.
func TestCommonCrawlOverlongLine(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Query().Get("showNumPages") == "true" {
			fmt.Fprint(w, `{"pages": 1}`)
			return
		}
		line := `{"timestamp":"20240101000000","url":%q,"filename":"f","offset":"0","length":"1"}` + "\n"
		fmt.Fprintf(w, line+line+line, "http://a/1", "http://a/"+strings.Repeat("x", 1<<20), "http://a/2")
	})
	got := 0
	err := ListCommonCrawl(context.Background(), srv.Client(), srv.URL+"/CC-index", "a/*", CCOptions{}, func(c Capture) error {
		if len(c.URL) > 8192 {
			t.Errorf("delivered a %d-byte URL", len(c.URL))
		}
		got++
		return nil
	})
	if got != 2 || err == nil || !strings.Contains(err.Error(), "1 rows dropped") {
		t.Errorf("%d captures, err %v; want 2 and one row dropped", got, err)
	}
}

// TestListCrawlsBounded: collinfo.json is read up to 1 MiB, not 64.
func TestListCrawlsBounded(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprintf(w, `[{"id":"CC-MAIN-2024-10","name":%q,"cdx-api":"/CC-MAIN-2024-10-index"}]`, strings.Repeat("x", 2<<20))
	})
	crawls, err := ListCrawls(context.Background(), srv.Client(), srv.URL+"/collinfo.json")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("2 MiB collinfo: %d crawls, err %v; want ErrTooLarge", len(crawls), err)
	}
}
