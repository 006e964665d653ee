package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/lazarus-preserve/lazarus/internal/verify"

	lzfetch "github.com/lazarus-preserve/lazarus/internal/fetch"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"go.uber.org/zap"
)

// CaptureRequests configures the Save Page Now requests the module makes
// after each new generation (what `lazarus capture` does:
// recover.RequestCaptures). Once the handler has loaded a new generation,
// and every instance has had time to switch (two ReloadIntervals), one
// instance (holding the audit's storage lock) crawls the live site at the
// audit's site URL, audits the archives with the audit's sources and key,
// and asks Save Page Now for the pages that matter: the manifest's page,
// then carriers until every stripe has k + Margin blocks archived; never
// more requests than carrier pages, never pages of another site. The
// outcome is kept in storage (lazarus/NAME/capture/ID), so other
// instances and restarts never ask again for that generation, whatever
// the outcome: a refused key is logged at error level and not retried
// until the next generation. Each run counts in
// caddy_lazarus_capture_requests_total{result} (safe, requested,
// limited, refused, failed) and each page asked for in
// caddy_lazarus_capture_pages_total{state} (success, error, abandoned,
// not-sent).
type CaptureRequests struct {
	// AccessKeyFile is the path of the Internet Archive key pair,
	// ACCESSKEY:SECRET on one line or the two on two lines
	// (https://archive.org/account/s3.php), read at each run. Required.
	AccessKeyFile string `json:"access_key_file,omitempty"`
	// SPN is the Save Page Now API's base URL. Defaults to
	// https://web.archive.org.
	SPN string `json:"spn,omitempty"`
	// Rate bounds the submissions, as "12/min", "1/s" or "100/h".
	// Defaults to 12/min, the API's limit for a logged-in user.
	Rate string `json:"rate,omitempty"`
	// Margin is the blocks wanted beyond k in every stripe. Defaults to
	// 2; -1 asks for k exactly (in a Caddyfile: capture_margin 0).
	Margin int `json:"margin,omitempty"`
	// Wait is how long a run keeps auditing and asking again for what
	// fails (after 10 minutes, the pause doubling), at most a day; the
	// run holds the audit's lock meanwhile. Builds plan for the requests
	// that fit in it (three with 1h: lighter pages). Defaults to 0: each
	// page is asked for once per generation.
	Wait caddy.Duration `json:"wait,omitempty"`
}

// validate checks the options (pure: the key file is read at each run).
func (c *CaptureRequests) validate() error {
	var errs []error
	if c.AccessKeyFile == "" {
		errs = append(errs, errors.New("lazarus: capture requests need capture_requests <access-key-file> (ACCESSKEY:SECRET from https://archive.org/account/s3.php)"))
	}
	if _, err := spn.CheckBase(c.SPN); c.SPN != "" && err != nil {
		errs = append(errs, fmt.Errorf("lazarus: capture_spn %q must be an https URL such as https://web.archive.org (http only on a loopback address)", c.SPN))
	}
	if c.Rate != "" {
		if _, err := spn.ParseLimit(c.Rate); err != nil {
			errs = append(errs, fmt.Errorf("lazarus: capture_%w", err))
		}
	}
	if c.Wait < 0 || time.Duration(c.Wait) > maxCaptureWait {
		errs = append(errs, fmt.Errorf("lazarus: capture_wait %v: want 0 to %v", time.Duration(c.Wait), maxCaptureWait))
	}
	if c.Margin < capture.NoMargin {
		errs = append(errs, fmt.Errorf("lazarus: capture_margin %d: want 0 or more", c.Margin))
	}
	return errors.Join(errs...)
}

// Bounds of the capture requests.
const (
	// captureTries bounds the runs for one generation that find the live
	// site serving another one (instances not switched yet): then the
	// outcome is recorded as failed.
	captureTries = 3
	// maxCaptureRecord bounds a stored outcome read back.
	maxCaptureRecord = 64 << 10
)

// capturer makes the capture requests of one handler, in the background.
type capturer struct {
	a   *auditor
	cfg *CaptureRequests
	// delay is the wait after a switch before asking (instances switch
	// within a ReloadInterval); retry the wait before asking again when
	// the live site served another generation. Tests shorten them.
	delay, retry time.Duration
	// siteRate is the crawl's requests a minute to the live site;
	// pollStart and pollMax the Save Page Now job polling (tests).
	siteRate           float64
	pollStart, pollMax time.Duration

	wake   chan struct{}
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func newCapturer(a *auditor) *capturer {
	ri := time.Duration(a.h.ReloadInterval)
	if ri <= 0 {
		ri = DefaultReloadInterval
	}
	return &capturer{a: a, cfg: a.cfg.CaptureRequests, delay: 2 * ri, retry: a.h.switchLag(), wake: make(chan struct{}, 1)}
}

// start runs the capture loop until stop.
func (c *capturer) start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, c.cancel = context.WithCancel(ctx)
	c.done = make(chan struct{})
	go c.loop(ctx)
}

// stop ends the loop and waits for it (a run in progress is cancelled:
// pending jobs are abandoned, nothing is recorded, so the next start asks
// again).
func (c *capturer) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
		<-c.done
		c.cancel = nil
	}
}

// wakeUp says a generation was loaded; it never blocks.
func (c *capturer) wakeUp() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// loop waits for loaded generations and asks for each the handler
// serves after delay, once; a run that finds the live site serving
// another generation is tried again after retry, up to captureTries.
func (c *capturer) loop(ctx context.Context) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		for try := 1; try <= captureTries; try++ {
			wait := c.delay
			if try > 1 {
				wait = c.retry
			}
			if lzfetch.Sleep(ctx, wait) != nil {
				return
			}
			g := c.a.h.gen.Load()
			if g == nil {
				break
			}
			if _, err := c.request(ctx, g, try == captureTries); !errors.Is(err, errOtherGeneration) {
				break
			}
		}
	}
}

// captureRecord is the stored outcome of one generation's capture
// requests (lazarus/NAME/capture/ID).
type captureRecord struct {
	Generation string    `json:"generation"`
	Time       time.Time `json:"time"`
	// Result is safe, requested, limited, refused or failed (see
	// captureResult).
	Result   string `json:"result"`
	Carriers int    `json:"carriers"`
	Planned  int    `json:"planned"`
	Sent     int    `json:"sent"`
	Error    string `json:"error,omitempty"`
}

func (c *capturer) recordKey(id string) string { return c.a.h.storagePrefix() + "capture/" + id }

// loadRecord reads generation id's stored outcome.
func (c *capturer) loadRecord(ctx context.Context, id string) (*captureRecord, error) {
	v, err := loadLimited(ctx, c.a.h.storage, c.recordKey(id), maxCaptureRecord)
	if err != nil {
		return nil, err
	}
	r, err := parseCaptureRecord(v, id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.recordKey(id), err)
	}
	return r, nil
}

// captureResults are the results a run records.
var captureResults = []string{"safe", "requested", "limited", "refused", "failed"}

// parseCaptureRecord reads a stored outcome of generation id (shared
// storage: checked, never trusted): bounded, of that generation, with a
// known result and counts in range.
func parseCaptureRecord(v []byte, id string) (*captureRecord, error) {
	var r captureRecord
	if len(v) > maxCaptureRecord || json.Unmarshal(v, &r) != nil {
		return nil, errors.New("capture record: not a record")
	}
	switch {
	case r.Generation != id:
		return nil, fmt.Errorf("capture record: of generation %q, not %s", r.Generation, id)
	case !slices.Contains(captureResults, r.Result):
		return nil, fmt.Errorf("capture record: unknown result %q", r.Result)
	case r.Carriers < 0 || r.Planned < 0 || r.Sent < 0 || r.Sent > r.Planned || r.Planned > r.Carriers:
		return nil, errors.New("capture record: counts out of range")
	}
	return &r, nil
}

// errOtherGeneration means the live site served another generation than
// the one loaded: nothing was asked for.
var errOtherGeneration = errors.New("the live site serves another generation")

// errAlreadyAsked means generation's capture requests were made before,
// by this instance or another; the stored outcome is returned.
var errAlreadyAsked = errors.New("capture requests already made for this generation")

// request makes generation g's capture requests unless they were made
// before (errAlreadyAsked, with the stored record), holding the audit's
// storage lock, and records the outcome. When the live site serves
// another generation nothing is asked for and, unless last, nothing is
// recorded (errOtherGeneration). When ctx ends the run nothing is
// recorded.
func (c *capturer) request(ctx context.Context, g *generation, last bool) (*captureRecord, error) {
	if r, err := c.loadRecord(ctx, g.id); err == nil {
		return r, errAlreadyAsked
	}
	h := c.a.h
	lock := h.storagePrefix() + "audit"
	if err := h.storage.Lock(ctx, lock); err != nil {
		return nil, fmt.Errorf("capture requests: audit lock: %w", err)
	}
	defer h.storage.Unlock(context.WithoutCancel(ctx), lock)
	if r, err := c.loadRecord(ctx, g.id); err == nil {
		return r, errAlreadyAsked
	}
	rep, err := c.run(ctx, g)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, errOtherGeneration) && !last:
		h.logger.Info("capture requests wait: the live site serves another generation", zap.String("generation", g.id), zap.Error(err),
			zap.Duration("retry_in", c.retry))
		return nil, err
	}
	r := c.outcome(g, rep, err)
	h.noteCaptureRun(ctx, rep, err)
	v, _ := json.Marshal(r)
	if serr := h.storage.Store(ctx, c.recordKey(g.id), v); serr != nil {
		h.logger.Warn("storing the capture requests' outcome", zap.Error(serr))
	}
	c.log(r) // before the count: whoever sees the count finds the log line
	h.metrics.captures.WithLabelValues(h.Name, r.Result).Inc()
	return r, err
}

// run makes the requests for g: RequestCaptures with the audit's site,
// sources and key. It stops before sending anything when the live site
// serves another generation than g (errOtherGeneration).
func (c *capturer) run(ctx context.Context, g *generation) (*capture.Report, error) {
	o, err := c.options(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var other error
	o.Progress = func(p capture.Progress) {
		switch {
		case p.Phase == "plan" && p.Report.Generation != g.id:
			other = fmt.Errorf("%w (%s, not %s)", errOtherGeneration, p.Report.Generation, g.id)
			cancel(other)
		case p.Phase == "job":
			c.a.h.metrics.capturePages.WithLabelValues(c.a.h.Name, p.Job.State).Inc()
		}
	}
	rep, err := capture.Run(ctx, o)
	if other != nil {
		return rep, other
	}
	if rep != nil && rep.Status != nil && rep.Status.Cause == nil {
		c.a.noteEvidence(ctx, summarize(rep.Status))
	}
	return rep, err
}

// options are RequestCaptures's options: the audit's (sources, history,
// key, site URL), the live site crawled at that URL, and the Save Page
// Now client.
func (c *capturer) options(ctx context.Context) (capture.Options, error) {
	var o capture.Options
	st, _, err := c.a.options()
	if err != nil {
		return o, err
	}
	if err := c.a.current(ctx); err != nil {
		return o, err
	}
	o.Status, o.Margin, o.Wait = st, c.cfg.Margin, time.Duration(c.cfg.Wait)
	o.Verify = verify.Options{SiteURL: st.SiteURL, ServerKey: st.ServerKey, Passphrase: st.Passphrase,
		Rate: c.siteRate, Contact: c.a.cfg.Contact, HygienePages: -1}
	o.SPN, err = c.client()
	return o, err
}

// client reads the key pair file and makes the Save Page Now client.
// Errors never quote the file.
func (c *capturer) client() (*spn.Client, error) {
	data, warn, err := keys.ReadPassphraseFile(c.cfg.AccessKeyFile)
	if err != nil {
		return nil, fmt.Errorf("capture_requests access key file: %w", err)
	}
	if warn != "" {
		c.a.h.logger.Warn(string(warn))
	}
	creds, err := spn.ParseCredentials(data)
	if err != nil {
		return nil, fmt.Errorf("capture_requests access key file %s: %w", c.cfg.AccessKeyFile, err)
	}
	rate := spn.DefaultRate
	if c.cfg.Rate != "" {
		if rate, err = spn.ParseLimit(c.cfg.Rate); err != nil {
			return nil, fmt.Errorf("capture_%w", err)
		}
	}
	return spn.New(spn.Options{Base: c.cfg.SPN, Credentials: creds, Rate: rate, Contact: c.a.cfg.Contact, PollStart: c.pollStart, PollMax: c.pollMax})
}

// outcome is what is recorded of a run.
func (c *capturer) outcome(g *generation, rep *capture.Report, err error) *captureRecord {
	r := &captureRecord{Generation: g.id, Time: c.a.h.now().UTC(), Result: captureResult(rep, err)}
	if rep != nil {
		r.Carriers, r.Planned, r.Sent = rep.Carriers, len(rep.Plan), rep.Sent
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// captureResult names a run's outcome: safe (the archives hold the
// generation safely, with or without requests), requested (requests
// made, not safe yet: captures take minutes to hours to show), limited
// (the archive's daily limit, or crawling of the host paused), refused
// (the access key) or failed (anything else: the site unreachable, the
// key file unreadable).
func captureResult(rep *capture.Report, err error) string {
	switch {
	case err == nil && rep != nil && rep.Safe:
		return "safe"
	case errors.Is(err, spn.ErrRefused):
		return "refused"
	case errors.Is(err, spn.ErrDailyLimit), errors.Is(err, spn.ErrHostPaused), errors.Is(err, spn.ErrWaitTooLong):
		return "limited"
	case errors.Is(err, capture.ErrShort):
		return "requested"
	}
	return "failed"
}

// log logs a run's outcome: info when safe, warn when requested or
// limited, error when refused or failed.
func (c *capturer) log(r *captureRecord) {
	fields := []zap.Field{zap.String("generation", r.Generation), zap.String("result", r.Result),
		zap.Int("carriers", r.Carriers), zap.Int("planned", r.Planned), zap.Int("sent", r.Sent)}
	if r.Error != "" {
		fields = append(fields, zap.String("error", r.Error))
	}
	switch r.Result {
	case "safe":
		c.a.h.logger.Info("capture requests: the archives hold the generation", fields...)
	case "requested", "limited":
		c.a.h.logger.Warn("capture requests made; the archives do not hold the generation safely yet", fields...)
	case "refused":
		c.a.h.logger.Error("capture requests: the access key was refused; check capture_requests' key file (not retried for this generation)", fields...)
	default:
		c.a.h.logger.Error("capture requests failed (not retried for this generation)", fields...)
	}
}
