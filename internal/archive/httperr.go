package archive

import (
	"context"
	"fmt"
	"github.com/lazarus-preserve/lazarus/internal/fetch"
	"io"
	"net/http"
	"time"
)

// DefaultMaxBytes is the default limit on one archive answer: 64 MiB, well
// above the ~30 MB of an IA CDX page of 150,000 rows.
const DefaultMaxBytes = 64 << 20

// HTTPError is a non-200 answer from an archive. For 429 and 503 answers
// RetryAfter carries the server's Retry-After (0 if absent or unparsable),
// so the caller's politeness layer can back off.
type HTTPError struct {
	URL        string
	Status     int
	RetryAfter time.Duration
}

// Error implements error.
func (e *HTTPError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("archive: GET %s: status %d (retry after %v)", e.URL, e.Status, e.RetryAfter)
	}
	return fmt.Sprintf("archive: GET %s: status %d", e.URL, e.Status)
}

// Throttled reports whether the archive asked the client to slow down or
// come back later (429 Too Many Requests or 503 Service Unavailable).
func (e *HTTPError) Throttled() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable
}

// get fetches u and returns its body, read up to maxBytes. A non-200 answer
// is an *HTTPError; the statuses in ok are returned as (nil, status, nil)
// so callers can treat, for instance, a 404 "no captures" as empty.
func get(ctx context.Context, doer Doer, u string, maxBytes int64, ok ...int) ([]byte, int, error) {
	rc, status, err := Open(ctx, doer, u, ok...)
	if err != nil || rc == nil {
		return nil, status, err
	}
	defer rc.Close()
	body, err := readLimited(rc, maxBytes)
	if err != nil {
		return nil, status, fmt.Errorf("archive: GET %s: %w", u, err)
	}
	return body, status, nil
}

// Open fetches u and returns the body of a 200 answer for the caller to
// read and close. A non-200 answer is an *HTTPError; the statuses in ok
// are returned as (nil, status, nil).
func Open(ctx context.Context, doer Doer, u string, ok ...int) (io.ReadCloser, int, error) {
	resp, err := OpenResponse(ctx, doer, u, ok...)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, status(resp), err
	}
	return resp.Body, resp.StatusCode, nil
}

// OpenResponse is Open returning the whole 200 response, whose header
// says how its body is coded; for a status in ok it returns the response
// with its body closed.
func OpenResponse(ctx context.Context, doer Doer, u string, ok ...int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("archive: request %s: %w", u, err)
	}
	resp, err := doer.Do(req)
	if err != nil {
		return nil, fmt.Errorf("archive: GET %s: %w", u, err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	resp.Body.Close()
	for _, s := range ok {
		if resp.StatusCode == s {
			return resp, nil
		}
	}
	return resp, &HTTPError{
		URL:        u,
		Status:     resp.StatusCode,
		RetryAfter: fetch.RetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
}

func status(resp *http.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// readLimited reads r to EOF but at most max bytes, failing with
// ErrTooLarge beyond that.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	body, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	return body, nil
}
