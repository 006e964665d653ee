package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// keyDoer answers every CDX query with rows (if any) and the resume key
// next returns for the n-th request; it counts the requests.
type keyDoer struct {
	rows bool
	next func(n int) string
	n    int
}

func (d *keyDoer) Do(*http.Request) (*http.Response, error) {
	d.n++
	body := `[["timestamp","original"]`
	if d.rows {
		body += fmt.Sprintf(`,["20200101000000","http://a/%d"]`, d.n)
	}
	body += fmt.Sprintf(`,[],[%q]]`, d.next(d.n))
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
}

// TestListResumeKeyEndless: CDX servers whose resume keys never end,
// beyond the one repeating a key (TestListResumeKeyLoop). Expected: a
// cycle through two keys stops when the first comes back; fresh keys on
// pages without captures stop after MaxEmptyPages; fresh keys on pages
// with captures stop at the page bound. Each ends in a *ListError after
// a bounded number of requests, having delivered what it read.
func TestListResumeKeyEndless(t *testing.T) {
	cases := map[string]struct {
		d        *keyDoer
		requests int
		want     error
	}{
		"cycle A B A":         {&keyDoer{rows: true, next: func(n int) string { return "AB"[n%2 : n%2+1] }}, 3, ErrMalformed},
		"fresh keys, no rows": {&keyDoer{next: func(n int) string { return fmt.Sprint("k", n) }}, MaxEmptyPages, ErrTruncated},
		"fresh keys, rows":    {&keyDoer{rows: true, next: func(n int) string { return fmt.Sprint("k", n) }}, DefaultMaxPages, ErrPageLimit},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			n := 0
			err := List(context.Background(), c.d, "http://x", "a/*", ListOptions{}, func(Capture) error { n++; return nil })
			var le *ListError
			if !errors.As(err, &le) || !errors.Is(err, c.want) {
				t.Fatalf("err %v, want a *ListError wrapping %v", err, c.want)
			}
			if c.d.n != c.requests || (c.d.rows && n != c.requests) {
				t.Errorf("%d requests, %d captures; want %d requests", c.d.n, n, c.requests)
			}
		})
	}
}
