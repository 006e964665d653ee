package spn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
)

// Requests without keys. The documented API (POST /save, GET
// /save/status/{job}) is for logged-in users ("SPN2 Public API Docs
// Draft", 2022-04-05); without keys, tools such as palewire/savepagenow
// and oduwsdl/archivenow send GET {base}/save/{url} and read the new
// capture from the answer: a Location, Content-Location or Link
// (rel="memento") naming /web/{timestamp}/{url}. The SPN2 changelog
// (2023-01-22) allows anonymous users 4 captures a minute. Since 2025
// programs report that the archive answers such requests 401 ("You need
// to be logged in to use Save Page Now"), 429 or 404: the client then
// stops at once with ErrKeysRequired rather than insisting.

// DefaultAnonymousRate is Options.Rate's default without keys: the 4
// captures a minute the SPN2 changelog (2023-01-22) allows anonymous
// users.
var DefaultAnonymousRate = Limit{N: 4, Per: time.Minute}

// DefaultAnonymousPending is Options.MaxPending's default without keys:
// one request at a time (the answer comes once the page is captured).
const DefaultAnonymousPending = 1

// ErrKeysRequired means the archive refuses requests without keys (HTTP
// 401 or 403, "You need to be logged in", or, before it took any
// request, a 404 or repeated 429s for the save endpoint). Keys from
// https://archive.org/account/s3.php lift it.
var ErrKeysRequired = errors.New("the archive refuses capture requests without keys")

// ExtWaybackError is the JobError.Ext of a request without keys that the
// Wayback answered with an X-Archive-Wayback-Runtime-Error header (set
// by this client, not the API).
const ExtWaybackError = "error:wayback-runtime"

// maxAnonymousThrottles bounds the 429 and 503 answers one request
// without keys waits out; before the archive took any request, that many
// in a row end the run with ErrKeysRequired (the archive is known to
// answer programs 429 for good).
const maxAnonymousThrottles = 3

// saveAnonymous asks for u without keys: GET {base}/save/{u}. It returns
// the job id when the answer names one (to poll), else the final result.
// Throttling answers are waited out (Retry-After, else a backoff) within
// the window; errors wrapping ErrKeysRequired or ErrDailyLimit end the
// run.
func (c *Client) saveAnonymous(ctx context.Context, u string) (string, *Result, error) {
	failures, throttles, waited := 0, 0, time.Duration(0)
	for {
		if err := c.window.wait(ctx); err != nil {
			return "", nil, err
		}
		a, err := c.send(ctx, http.MethodGet, "/save/"+u, "")
		if err == nil || errors.Is(err, ErrKeysRequired) {
			id, r, aerr := readAnonymous(u, a)
			switch {
			case errors.Is(aerr, ErrKeysRequired) && c.answered.Load():
				// Requests were taken before in this run: a limit for
				// requests without keys, most likely the daily one.
				aerr = fmt.Errorf("spn: %s: HTTP %d after earlier requests were taken: %w", u, a.status, ErrDailyLimit)
			case aerr == nil:
				c.answered.Store(true)
			}
			return id, r, aerr
		}
		switch {
		case ctx.Err() != nil:
			return "", nil, ctx.Err()
		case throttled(a.status):
			throttles++
			if a.retryAfter > c.o.MaxWait {
				return "", nil, &waitError{wait: a.retryAfter}
			}
			if throttles >= maxAnonymousThrottles {
				if !c.answered.Load() {
					return "", nil, fmt.Errorf("spn: %w: HTTP %d %d times in a row", ErrKeysRequired, a.status, throttles)
				}
				return "", nil, fmt.Errorf("spn: saving %s: %w: still throttled after %d answers (%w)", u, ErrWaitTooLong, throttles, err)
			}
			if err := c.holdOff(a.status, a.retryAfter, throttles, &waited); err != nil {
				return "", nil, err
			}
		case transient(a.status, err):
			if failures++; failures > c.o.Retries {
				if !c.answered.Load() {
					return "", nil, fmt.Errorf("spn: %w at %s: %w", ErrUnreachable, c.base.Redacted(), err)
				}
				return "", nil, fmt.Errorf("spn: saving %s: %w", u, err)
			}
			if err := fetch.Sleep(ctx, backoff(failures-1, time.Second, c.o.PollMax)); err != nil {
				return "", nil, err
			}
		default:
			return "", nil, fmt.Errorf("spn: saving %s: %w", u, err)
		}
	}
}

// jobInPage finds a job id in an answer page (the page the Wayback
// serves browsers watches the job: spn.watchJob("spn2-…")).
var jobInPage = regexp.MustCompile(`spn2-[0-9a-f]{16,64}`)

// captureRef finds /web/{14 digits}[modifier_]/{url} in a header value.
var captureRef = regexp.MustCompile(`/web/([0-9]{14})(?:[a-z]{2}_)?/([^\s<>";,]+)`)

// readAnonymous reads the answer to GET /save/{u}: the job id it names
// (to poll), or the result (a capture named, the request accepted
// without one, or the URL refused), or an error that ends the run
// (ErrKeysRequired, ErrDailyLimit). It never trusts the answer's size or
// shape: headers and body are searched, not parsed whole.
func readAnonymous(u string, a httpAnswer) (string, *Result, error) {
	now := time.Now()
	lower := bytes.ToLower(a.body[:min(len(a.body), maxAnswer)])
	switch {
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden || a.status == http.StatusNotFound ||
		bytes.Contains(lower, []byte("need to be logged in")):
		return "", nil, fmt.Errorf("spn: %w (HTTP %d)", ErrKeysRequired, a.status)
	case bytes.Contains(lower, []byte("daily")) && bytes.Contains(lower, []byte("captures limit")):
		return "", nil, fmt.Errorf("spn: %w (without keys)", ErrDailyLimit)
	}
	if e := a.header.Get("X-Archive-Wayback-Runtime-Error"); e != "" {
		return "", &Result{URL: u, State: StateError, Err: &JobError{Ext: ExtWaybackError, Message: e}, Finished: now}, nil
	}
	if a.status/100 != 2 && a.status/100 != 3 {
		return "", &Result{URL: u, State: StateError, Err: &httpError{method: http.MethodGet, path: "/save/" + u, status: a.status}, Finished: now}, nil
	}
	if ts, orig, ok := namedCapture(a.header); ok {
		r := &Result{URL: u, State: StateSuccess, OriginalURL: orig, Time: ts, Submitted: now, Finished: now}
		if !sameSite(u, orig) {
			r.State, r.Err = StateError, &JobError{Ext: ExtForeignTarget, Message: "the capture is of " + orig}
		}
		return "", r, nil
	}
	if id := jobInPage.Find(a.body); id != nil {
		return string(id), nil, nil
	}
	return "", &Result{URL: u, State: StateAccepted, Submitted: now, Finished: now}, nil
}

// namedCapture finds the capture an answer names: Location,
// Content-Location, or a Link entry whose rel holds "memento".
func namedCapture(h http.Header) (time.Time, string, bool) {
	vals := []string{h.Get("Location"), h.Get("Content-Location")}
	for _, l := range h.Values("Link") {
		vals = append(vals, mementoLinks(l)...)
	}
	for _, v := range vals {
		m := captureRef.FindStringSubmatch(v)
		if m == nil {
			continue
		}
		t, err := time.Parse("20060102150405", m[1])
		if err == nil {
			return t, m[2], true
		}
	}
	return time.Time{}, "", false
}

// mementoLinks returns the targets of the entries of a Link header whose
// rel holds the token "memento" (RFC 7089: "memento", "first memento",
// …). Entries are split at "<" so that commas inside targets do no harm.
func mementoLinks(v string) []string {
	var out []string
	for _, e := range strings.Split(v, "<")[1:] {
		target, params, ok := strings.Cut(e, ">")
		if !ok {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "rel") && hasToken(strings.Trim(strings.TrimSpace(val), `"`), "memento") {
				out = append(out, target)
			}
		}
	}
	return out
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
