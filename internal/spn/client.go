package spn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
)

// Defaults of Options.
const (
	DefaultBase        = "https://web.archive.org"
	DefaultMaxPending  = 4
	DefaultPollStart   = 5 * time.Second
	DefaultPollMax     = 60 * time.Second
	DefaultJobTimeout  = 10 * time.Minute
	DefaultSessionWait = 30 * time.Second
	DefaultRetries     = 5
	DefaultMaxWait     = 5 * time.Minute
	// maxThrottles bounds the 429, 503 and session-limit answers one
	// submission waits out before it gives up.
	maxThrottles = 30
)

// Doer sends HTTP requests (an *http.Client).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Options configure a Client. Zero values take the documented defaults.
type Options struct {
	// Base is the API's base URL; defaults to DefaultBase.
	Base string
	// Credentials are the Internet Archive key pair; the zero value sends
	// requests without keys (see Client.Anonymous), which the documented
	// API does not serve: the Rate and MaxPending defaults are then
	// DefaultAnonymousRate and DefaultAnonymousPending.
	Credentials Credentials
	// HTTP sends the requests; defaults to an http.Client with a
	// two-minute timeout that follows no redirect.
	HTTP Doer
	// UserAgent defaults to lazarus's (fetch.UserAgent), with Contact, the
	// operator's e-mail address, if given.
	UserAgent string
	Contact   string
	// Rate bounds the submissions (POST /save, or GET /save/{url}
	// without keys) in any window; defaults to DefaultRate (12 a minute),
	// DefaultAnonymousRate without keys.
	Rate Limit
	// MaxPending bounds the jobs submitted and not yet finished; defaults
	// to DefaultMaxPending, DefaultAnonymousPending without keys.
	MaxPending int
	// PollStart is the wait before a job's first status poll, doubled
	// after each pending answer up to PollMax; default 5 s and 60 s.
	PollStart, PollMax time.Duration
	// JobTimeout is how long a job may stay pending before the client
	// stops polling it (the API answers "pending" for jobs it forgot);
	// defaults to DefaultJobTimeout.
	JobTimeout time.Duration
	// SessionWait is the pause after an error:user-session-limit answer
	// before submitting again; defaults to DefaultSessionWait.
	SessionWait time.Duration
	// Retries bounds the attempts after a transient failure (a
	// connection error, a 5xx without Retry-After) of one request;
	// defaults to DefaultRetries.
	Retries int
	// MaxWait bounds the wait a submission's throttling answer may ask
	// for (Retry-After), and the waits of all the throttling answers to
	// one submission together: an answer asking for longer, or one that
	// brings them over it, stops the run with ErrWaitTooLong; defaults to
	// DefaultMaxWait. Status polls wait PollMax at most, whatever the
	// answer asks.
	MaxWait time.Duration
	// IfNotArchivedWithin, if set, is sent as if_not_archived_within
	// (e.g. "1h"): the API skips URLs captured more recently.
	IfNotArchivedWithin string
}

// Client talks to one SPN2 endpoint. Safe for concurrent use.
type Client struct {
	o        Options
	base     *url.URL
	window   *window
	pending  chan struct{}
	answered atomic.Bool // the API has accepted or judged a submission
	anon     bool        // no credentials: requests without keys
}

// New checks o and returns a Client.
func New(o Options) (*Client, error) {
	if o.Base == "" {
		o.Base = DefaultBase
	}
	base, err := CheckBase(o.Base)
	if err != nil {
		return nil, err
	}
	anon := o.Credentials == Credentials{}
	if !anon && (!keyToken(o.Credentials.Access) || !keyToken(o.Credentials.Secret)) {
		return nil, fmt.Errorf("spn: credentials: %w", ErrBadKeys)
	}
	rate, pending := DefaultRate, DefaultMaxPending
	if anon {
		rate, pending = DefaultAnonymousRate, DefaultAnonymousPending
	}
	switch {
	case o.Rate.N < 0 || o.Rate.Per < 0, o.MaxPending < 0, o.PollStart < 0, o.PollMax < 0, o.JobTimeout < 0, o.SessionWait < 0, o.Retries < 0, o.MaxWait < 0:
		return nil, errors.New("spn: negative rate, count or duration")
	case o.Rate.N == 0 || o.Rate.Per == 0:
		o.Rate = rate
	}
	def(&o.MaxPending, pending)
	def(&o.PollStart, DefaultPollStart)
	def(&o.PollMax, DefaultPollMax)
	def(&o.JobTimeout, DefaultJobTimeout)
	def(&o.SessionWait, DefaultSessionWait)
	def(&o.Retries, DefaultRetries)
	def(&o.MaxWait, DefaultMaxWait)
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 2 * time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.UserAgent == "" {
		o.UserAgent = fetch.UserAgent(o.Contact)
	}
	return &Client{o: o, base: base, window: newWindow(o.Rate), pending: make(chan struct{}, o.MaxPending), anon: anon}, nil
}

// Archive names the source whose listing confirms the captures: the
// Wayback Machine's ("wayback"), as ondemand.Requester asks.
func (c *Client) Archive() string { return "wayback" }

// Keyed reports whether the client sends the user's keys.
func (c *Client) Keyed() bool { return !c.anon }

// Anonymous reports whether the client sends requests without keys.
func (c *Client) Anonymous() bool { return c.anon }

// Rate is the submission rate the client keeps to.
func (c *Client) Rate() Limit { return c.o.Rate }

// AboveCap reports whether Rate is above the cap the Internet Archive
// documents for the client's requests (DefaultRate with keys,
// DefaultAnonymousRate without), and that cap. A loopback base (a local
// stand-in) has no cap.
func (c *Client) AboveCap() (Limit, bool) {
	limit := DefaultRate
	if c.anon {
		limit = DefaultAnonymousRate
	}
	return limit, !loopback(c.base.Hostname()) && c.o.Rate.Above(limit)
}

func def[T int | time.Duration](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

// Submit asks the API to capture u and returns the job id. It waits for
// the submission window, honours Retry-After on 429 and 503, pauses and
// tries again on a session-limit answer, and retries transient failures.
// A *JobError is the API's refusal of this URL; errors wrapping
// ErrRefused, ErrDailyLimit, ErrHostPaused or ErrWaitTooLong (a
// Retry-After beyond MaxWait) end the run.
func (c *Client) Submit(ctx context.Context, u string) (string, error) {
	form := url.Values{"url": {u}, "skip_first_archive": {"1"}}
	if c.o.IfNotArchivedWithin != "" {
		form.Set("if_not_archived_within", c.o.IfNotArchivedWithin)
	}
	body := form.Encode()
	failures, throttles, waited := 0, 0, time.Duration(0)
	for {
		if err := c.window.wait(ctx); err != nil {
			return "", err
		}
		status, ans, retryAfter, err := c.call(ctx, http.MethodPost, "/save", body)
		if err == nil {
			id, perr := parseSubmit(ans)
			if perr == nil || !sessionLimited(perr) {
				rerr := c.refusal(status, perr)
				var he *httpError
				switch {
				case errors.As(rerr, &he) && !c.answered.Load():
					return "", fmt.Errorf("spn: %w at %s: %w", ErrUnreachable, c.base.Redacted(), rerr)
				case rerr == nil || errors.As(rerr, new(*JobError)):
					c.answered.Store(true)
				}
				return id, rerr
			}
			err = perr
		}
		switch {
		case fatal(err), ctx.Err() != nil:
			return "", err
		case throttled(status) || sessionLimited(err):
			if retryAfter > c.o.MaxWait {
				return "", &waitError{wait: retryAfter}
			}
			if throttles++; throttles > maxThrottles {
				return "", fmt.Errorf("spn: submitting %s: %w: still throttled after %d answers (%w)", u, ErrWaitTooLong, throttles, err)
			}
			if err := c.holdOff(status, retryAfter, throttles, &waited); err != nil {
				return "", err
			}
		case transient(status, err):
			if failures++; failures > c.o.Retries {
				if !c.answered.Load() {
					return "", fmt.Errorf("spn: %w at %s: %w", ErrUnreachable, c.base.Redacted(), err)
				}
				return "", fmt.Errorf("spn: submitting %s: %w", u, err)
			}
			if err := fetch.Sleep(ctx, backoff(failures-1, time.Second, c.o.PollMax)); err != nil {
				return "", err
			}
		case !c.answered.Load():
			return "", fmt.Errorf("spn: %w at %s: %w", ErrUnreachable, c.base.Redacted(), err)
		default:
			return "", fmt.Errorf("spn: submitting %s: %w", u, err)
		}
	}
}

// holdOff holds submissions after the n-th throttling answer to one
// request for the wait it asks (throttleWait), adding it to waited. It
// returns an error wrapping ErrWaitTooLong instead when the waits asked
// for the request would add up to more than MaxWait: an archive
// answering Retry-After just under MaxWait again and again would
// otherwise hold the run for hours.
func (c *Client) holdOff(status int, retryAfter time.Duration, n int, waited *time.Duration) error {
	d := c.throttleWait(status, retryAfter, n)
	if *waited+d > c.o.MaxWait {
		return &waitError{wait: *waited + d, inAll: true}
	}
	*waited += d
	c.window.pause(d)
	return nil
}

// throttleWait is how long to hold submissions after a throttling answer:
// the server's Retry-After, else the session wait, else a backoff.
func (c *Client) throttleWait(status int, retryAfter time.Duration, n int) time.Duration {
	switch {
	case retryAfter > 0:
		return retryAfter
	case !throttled(status):
		return c.o.SessionWait // a session-limit answer
	}
	return backoff(n-1, time.Second, c.o.PollMax)
}

// refusal turns a parse error of a non-2xx answer into the HTTP error.
func (c *Client) refusal(status int, err error) error {
	if err != nil && errors.Is(err, errMalformed) && status/100 != 2 {
		return &httpError{method: http.MethodPost, path: "/save", status: status}
	}
	return err
}

// Status reads a job's state once. It retries throttled and transient
// failures, waiting the answer's Retry-After but PollMax at most.
func (c *Client) Status(ctx context.Context, id string) (Job, error) {
	if !jobID.MatchString(id) {
		return Job{}, fmt.Errorf("spn: job id %q: %w", id, errMalformed)
	}
	failures := 0
	for {
		status, ans, retryAfter, err := c.call(ctx, http.MethodGet, "/save/status/"+id, "")
		if err == nil {
			var j Job
			if j, err = parseStatus(ans); err == nil {
				return j, nil
			}
			if status/100 != 2 {
				err = &httpError{method: http.MethodGet, path: "/save/status/" + id, status: status}
			}
		}
		if fatal(err) || ctx.Err() != nil || !(throttled(status) || transient(status, err)) {
			return Job{}, err
		}
		if failures++; failures > c.o.Retries {
			return Job{}, fmt.Errorf("spn: status of %s: %w", id, err)
		}
		if err := fetch.Sleep(ctx, min(max(retryAfter, backoff(failures-1, c.o.PollStart, c.o.PollMax)), c.o.PollMax)); err != nil {
			return Job{}, err
		}
	}
}

// httpAnswer is one HTTP answer, read.
type httpAnswer struct {
	status     int
	header     http.Header
	body       []byte
	retryAfter time.Duration
}

// call sends one request and reads the answer. 401 and 403 are
// ErrRefused (ErrKeysRequired without keys); other non-2xx answers come
// back with their status and body, and the error of a 429, 503 or other
// 5xx.
func (c *Client) call(ctx context.Context, method, path, form string) (int, []byte, time.Duration, error) {
	a, err := c.send(ctx, method, path, form)
	return a.status, a.body, a.retryAfter, err
}

// send is call with the answer's headers.
func (c *Client) send(ctx context.Context, method, path, form string) (httpAnswer, error) {
	var body io.Reader
	if form != "" {
		body = strings.NewReader(form)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, body)
	if err != nil {
		return httpAnswer{}, fmt.Errorf("spn: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if !c.anon {
		req.Header.Set("Authorization", c.o.Credentials.header())
	}
	req.Header.Set("User-Agent", c.o.UserAgent)
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		return httpAnswer{}, fmt.Errorf("spn: %s %s: %w", method, path, scrub(err, c.o.Credentials))
	}
	defer resp.Body.Close()
	a := httpAnswer{status: resp.StatusCode, header: resp.Header}
	if a.body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1)); err != nil {
		return a, fmt.Errorf("spn: %s %s: reading the answer: %w", method, path, err)
	}
	a.retryAfter = retryAfterOf(resp)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return a, fmt.Errorf("spn: %s %s: HTTP %d: %w", method, path, resp.StatusCode, c.refused())
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		if je := errorBody(a.body); je != nil && fatal(je) {
			return a, je
		}
		return a, &httpError{method: method, path: path, status: resp.StatusCode}
	}
	return a, nil
}

// refused is the error of a 401 or 403 answer: the keys refused, or
// requests without keys.
func (c *Client) refused() error {
	if c.anon {
		return ErrKeysRequired
	}
	return ErrRefused
}

// errorBody is the JobError an answer's body holds, if it is one.
func errorBody(ans []byte) *JobError {
	_, err := parseSubmit(ans)
	var je *JobError
	if errors.As(err, &je) {
		return je
	}
	return nil
}

// scrub removes the secret from a transport error's text, should a
// transport ever quote a header.
func scrub(err error, c Credentials) error {
	if c.Secret != "" && strings.Contains(err.Error(), c.Secret) {
		return errors.New(strings.ReplaceAll(err.Error(), c.Secret, "<secret>"))
	}
	return err
}

// throttled reports a 429 or 503 answer.
func throttled(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// transient reports a failure worth retrying: no answer, or a 5xx.
func transient(status int, err error) bool {
	return err != nil && (status == 0 || status >= 500)
}

// CheckBase checks a Save Page Now base URL: absolute, http(s), no
// query, and https unless the host is a loopback address (the access
// key's secret travels in every request).
func CheckBase(raw string) (*url.URL, error) {
	base, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" ||
		base.ForceQuery || base.Fragment != "" || strings.Contains(raw, "#") || base.User != nil || !validPort(base.Port()) {
		return nil, fmt.Errorf("spn: base URL %q is not an absolute http(s) URL without query, fragment or user", raw)
	}
	if base.Scheme == "http" && !loopback(base.Hostname()) {
		return nil, fmt.Errorf("spn: base URL %q: plain http is for loopback addresses only (the secret would travel in clear); use https", raw)
	}
	return base, nil
}

// validPort reports whether p is empty or a port number 1–65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// loopback reports whether host is a loopback address (or "localhost"),
// the only hosts plain http may carry the secret to.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
