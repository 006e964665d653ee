package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of Options.
const (
	DefaultRate        = 30.0 // requests per minute per host
	DefaultConcurrency = 2
	DefaultTimeout     = 60 * time.Second
	DefaultMaxBody     = 32 << 20
	DefaultRetries     = 5
	DefaultFailures    = 8 // consecutive failures before a host sleeps
	DefaultDormancy    = 10 * time.Minute
	DefaultMaxBackoff  = 5 * time.Minute
)

// DefaultHostRates are conservative per-host limits (requests per minute)
// for the archives Lazarus knows.
var DefaultHostRates = map[string]float64{
	"web.archive.org":       24, // the CDX API's documented limit
	"index.commoncrawl.org": 12, // often overloaded
	"data.commoncrawl.org":  60,
}

// Errors callers branch on.
var (
	// ErrDormant means the host failed too often and is resting.
	ErrDormant = errors.New("host is resting after repeated failures")
	// ErrTooLarge means a response body exceeded Options.MaxBody.
	ErrTooLarge = errors.New("response larger than the size cap")
	// ErrForeignRedirect means a server redirected to another host; such
	// redirects are not followed (an archive or a site must not send
	// recovery to addresses chosen by others).
	ErrForeignRedirect = errors.New("redirect to another host not followed")
	// ErrUnreachable means the host's name did not resolve or nothing
	// answers at its address: retrying soon would not help, so the host
	// rests at once and the request is not retried.
	ErrUnreachable = errors.New("host unreachable")
)

// Options configure a Client. Zero values take the documented defaults.
type Options struct {
	UserAgent   string             // defaults to "lazarus (+https://github.com/lazarus-preserve/lazarus)"
	Contact     string             // appended to the User-Agent, e.g. an email address
	Rate        float64            // requests per minute for every host, overriding HostRates and DefaultRate
	HostRates   map[string]float64 // per-host limits; defaults to DefaultHostRates, else DefaultRate
	Concurrency int                // requests in flight per host; defaults to 2
	Timeout     time.Duration      // per attempt, headers and body; defaults to 60 s
	MaxBody     int64              // bytes per response body; defaults to 32 MiB
	Retries     int                // extra attempts after a retryable failure; defaults to 5
	Failures    int                // consecutive failures before a host rests; defaults to 8
	Dormancy    time.Duration      // how long it rests; defaults to 10 minutes
	Transport   http.RoundTripper  // defaults to http.DefaultTransport

	now   func() time.Time // test hooks
	sleep func(ctx context.Context, d time.Duration) error
	jit   func() float64
}

// Client is a polite HTTP client, safe for concurrent use.
type Client struct {
	o     Options
	hc    *http.Client
	mu    sync.Mutex
	hosts map[string]*host
}

// host is the politeness state of one host.
type host struct {
	interval time.Duration // between request starts
	next     time.Time     // earliest start of the next request
	slots    chan struct{} // concurrency
	failures int
	restTill time.Time
}

// New returns a Client.
func New(o Options) *Client {
	o.defaults()
	c := &Client{o: o, hosts: map[string]*host{}}
	c.hc = &http.Client{Transport: o.Transport, CheckRedirect: c.redirect}
	return c
}

// redirect lets the client follow a redirect (see sameSite) when the
// host's rate allows the next request: a redirect is one more request.
func (c *Client) redirect(req *http.Request, via []*http.Request) error {
	if err := sameSite(req, via); err != nil {
		return err
	}
	return c.pace(req.Context(), c.host(req.URL.Hostname()))
}

// sameSite follows at most 10 redirects, each to the host and port of the
// first request (a leading "www." aside; http on 80 to https on 443 and
// back is fine).
func sameSite(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	bare := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" && p != "80" && p != "443" {
			return p
		}
		return "web"
	}
	from := via[0].URL
	if bare(req.URL.Hostname()) != bare(from.Hostname()) || port(req.URL) != port(from) {
		return fmt.Errorf("%w: %s to %s", ErrForeignRedirect, from.Host, req.URL.Redacted())
	}
	return nil
}

func (o *Options) defaults() {
	if o.UserAgent == "" {
		o.UserAgent = UserAgent(o.Contact)
	} else if o.Contact != "" {
		o.UserAgent += " contact: " + o.Contact
	}
	if o.HostRates == nil {
		o.HostRates = DefaultHostRates
	}
	setDefault(&o.Concurrency, DefaultConcurrency)
	setDefault(&o.Timeout, DefaultTimeout)
	setDefault(&o.MaxBody, DefaultMaxBody)
	setDefault(&o.Retries, DefaultRetries)
	setDefault(&o.Failures, DefaultFailures)
	setDefault(&o.Dormancy, DefaultDormancy)
	if o.Transport == nil {
		o.Transport = onceTransport()
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.sleep == nil {
		o.sleep = Sleep
	}
	if o.jit == nil {
		o.jit = rand.Float64
	}
}

// UserAgent is the User-Agent Lazarus sends archives: its name and home,
// and the operator's contact when given, so an archive can reach them.
func UserAgent(contact string) string {
	ua := "lazarus (+https://github.com/lazarus-preserve/lazarus)"
	if contact != "" {
		ua += " contact: " + contact
	}
	return ua
}

func setDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Sleep waits d or until ctx is done, and returns ctx's error if it is
// (at once for d ≤ 0).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rate returns the requests per minute allowed for a host.
func (o *Options) rate(hostname string) float64 {
	if o.Rate > 0 {
		return o.Rate
	}
	if r, ok := o.HostRates[strings.ToLower(hostname)]; ok && r > 0 {
		return r
	}
	return DefaultRate
}

func (c *Client) host(hostname string) *host {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hosts[hostname]
	if h == nil {
		h = &host{interval: time.Duration(float64(time.Minute) / c.o.rate(hostname)), slots: make(chan struct{}, c.o.Concurrency)}
		c.hosts[hostname] = h
	}
	return h
}

// Do sends req politely, retrying what is worth retrying. The request
// must be replayable (no body, or GetBody set). A 2xx–4xx answer other
// than 429 is returned as is; its body is capped at MaxBody (reading past
// it fails with ErrTooLarge).
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	h := c.host(req.URL.Hostname())
	var last error
	for attempt := 0; attempt <= c.o.Retries; attempt++ {
		resp, wait, err := c.attempt(ctx, h, req)
		if err == nil {
			return resp, nil
		}
		if !retryable(err) || ctx.Err() != nil {
			return nil, err
		}
		last = err
		if wait > c.o.Dormancy { // a server asking for more than a rest: rest, don't hang
			c.rest(h)
			return nil, fmt.Errorf("%w: %s asks to wait %v; resting the host instead", ErrDormant, req.URL.Redacted(), wait.Round(time.Second))
		}
		if err := c.o.sleep(ctx, c.backoff(attempt, wait)); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: giving up after %d attempts: %w", req.URL.Redacted(), c.o.Retries+1, last)
}

// attempt makes one request within the host's limits. wait is the
// server's Retry-After, if any.
func (c *Client) attempt(ctx context.Context, h *host, req *http.Request) (*http.Response, time.Duration, error) {
	release, err := c.acquire(ctx, h)
	if err != nil {
		return nil, 0, err
	}
	actx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	r := req.Clone(actx)
	r.Header.Set("User-Agent", c.o.UserAgent)
	resp, err := c.hc.Do(r)
	if err != nil {
		cancel()
		release()
		if errors.Is(err, ErrForeignRedirect) {
			return nil, 0, err // an answer, not a failure: nothing to retry
		}
		if unreachable(err) {
			c.rest(h)
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // the caller names the URL
			}
			return nil, 0, fmt.Errorf("%w: %w", ErrUnreachable, err)
		}
		c.failed(h)
		return nil, 0, &retryError{err: err}
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		release()
		c.failed(h)
		wait := RetryAfter(resp.Header.Get("Retry-After"), c.o.now())
		return nil, wait, &retryError{err: fmt.Errorf("%s: HTTP %d", req.URL.Redacted(), resp.StatusCode), status: resp.StatusCode}
	}
	c.succeeded(h)
	resp.Body = &cappedBody{rc: resp.Body, left: c.o.MaxBody, done: func() { cancel(); release() }}
	return resp, 0, nil
}

// acquire waits for a concurrency slot and the host's next start time.
func (c *Client) acquire(ctx context.Context, h *host) (func(), error) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-h.slots }
	c.mu.Lock()
	now := c.o.now()
	if now.Before(h.restTill) {
		till := h.restTill
		c.mu.Unlock()
		release()
		return nil, fmt.Errorf("%w until %s", ErrDormant, till.Format(time.TimeOnly))
	}
	c.mu.Unlock()
	if err := c.pace(ctx, h); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// pace waits for the host's next start time and books the one after.
func (c *Client) pace(ctx context.Context, h *host) error {
	c.mu.Lock()
	now := c.o.now()
	start := h.next
	if start.Before(now) {
		start = now
	}
	h.next = start.Add(h.interval)
	c.mu.Unlock()
	return c.o.sleep(ctx, start.Sub(now))
}

// onceTransport is http.DefaultTransport without keep-alives. The
// Transport silently sends an idempotent request again when a reused
// connection breaks under it, outside any rate limit (an archive that
// resets connections would see bursts); on a fresh connection it never
// does, so each request is sent once per attempt the client paces.
func onceTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return t
}

func (c *Client) failed(h *host) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.failures++; h.failures >= c.o.Failures {
		h.restTill, h.failures = c.o.now().Add(c.o.Dormancy), 0
	}
}

// rest puts a host to sleep at once.
func (c *Client) rest(h *host) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h.restTill, h.failures = c.o.now().Add(c.o.Dormancy), 0
}

// unreachable reports whether a transport error says the host cannot be
// reached at all (no such name, no network, connection refused), as
// opposed to a host that is slow or overloaded.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return !dns.IsTimeout
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}

func (c *Client) succeeded(h *host) {
	c.mu.Lock()
	h.failures = 0
	c.mu.Unlock()
}

// backoff is exponential with full jitter, at least the server's
// Retry-After, at most DefaultMaxBackoff.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	base := time.Second << min(attempt, 10)
	d := time.Duration(c.o.jit() * float64(base))
	return min(max(d, retryAfter), max(DefaultMaxBackoff, retryAfter))
}

// MaxRetryAfter is the longest wait RetryAfter returns: a server asking
// for more (2^31 seconds and beyond, however many digits) asks for at
// least this much, which callers cap or refuse.
const MaxRetryAfter = time.Duration(1<<31) * time.Second

// RetryAfter parses a Retry-After header value: delay-seconds (surrounding
// spaces allowed) or an HTTP-date, taken relative to now. It returns 0 when
// v is empty, unparsable, not positive or in the past, and MaxRetryAfter
// for a number of seconds above it (an absurd wait is still a wait: the
// client rests the host rather than retrying soon).
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if strings.Trim(v, "0123456789") == "" { // delay-seconds, of any length
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err == nil && n <= 0:
			return 0
		case err != nil || n > int64(MaxRetryAfter/time.Second):
			return MaxRetryAfter
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter)
	}
	return 0
}

// retryError marks a failure worth retrying.
type retryError struct {
	err    error
	status int
}

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var re *retryError
	return errors.As(err, &re)
}

// cappedBody fails reads past the size cap and releases the host slot on
// Close.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	done func()
	once sync.Once
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(b.done)
	return err
}
