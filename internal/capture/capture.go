package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/ondemand"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// Defaults of Options.
const (
	// DefaultMargin is Options.Margin's default: blocks beyond k per
	// stripe, against captures that turn out damaged or lost.
	DefaultMargin = 2
	// NoMargin, as Options.Margin, asks for k blocks per stripe exactly.
	NoMargin = -1
	// DefaultWaitEvery is Options.WaitEvery's default.
	DefaultWaitEvery = 5 * time.Minute
	// DefaultRetry is Options.Retry's default.
	DefaultRetry = 10 * time.Minute
	// DefaultGrace is Options.Grace's default: the Wayback's index shows
	// most captures within minutes to hours.
	DefaultGrace = 2 * time.Hour
	// DefaultAttempts is Options.Attempts's default (Save Page Now takes
	// 10 captures of one URL a day).
	DefaultAttempts = 3
	// DefaultLiveEvery is Options.LiveEvery's default.
	DefaultLiveEvery = 30 * time.Second
)

// ErrShort means the archives do not yet hold the newest
// generation safely: the error says what is still short. Captures can
// take minutes to hours to show in the archive's index.
var ErrShort = errors.New("the archives do not yet hold the newest generation safely")

// ErrSourcesFailed means no archive could be read (every source failed
// to list the site): a plan would take the archives for empty.
var ErrSourcesFailed = errors.New("no archive could be read")

// ErrNotLive means the live site did not serve the generation expected
// (Options.Expect) within Options.WaitLive: it is not deployed yet, so
// asking archives to capture it would capture the old one.
var ErrNotLive = errors.New("the live site does not serve the new generation yet")

// Options configure Run.
type Options struct {
	// Verify says how the live site is crawled, as for Verify (SiteURL,
	// one of the keys, Client, Rate, SkipQuery, the bounds); its hygiene
	// checks, History, SiteDir and trial restore are not used.
	Verify verify.Options
	// Status says how the archives are audited, as for Status (Sources,
	// History, StateDir, Client, …); its SiteURL and key default to
	// Verify's. Its Now is ignored: the requests are made now, and each
	// audit reads the archives as they stand then. Without a StateDir,
	// a run that sends requests keeps what fetched captures held in a
	// temporary directory, removed when it ends, so that the audits
	// after the first fetch only the captures new since.
	Status status.Options
	// Requesters are the archives asked to capture pages (one
	// implementation per archive that captures on request; each keeps to
	// its own limits). Nil means SPN alone, if set.
	Requesters []ondemand.Requester
	// SPN is the Internet Archive's Save Page Now, the requester when
	// Requesters is nil; with neither, Run makes a plan and sends nothing
	// (a dry run).
	SPN *spn.Client
	// Margin is the blocks wanted beyond k in every stripe (at most the
	// stripe's k + m); 0 defaults to DefaultMargin, NoMargin asks for k.
	Margin int
	// Max bounds the requests to each archive; 0 means no bound beyond
	// the carrier pages (a round never asks for more pages than carry
	// blocks).
	Max int
	// Wait, after the first requests, keeps auditing the archives every
	// WaitEvery until they hold the generation or Wait has passed, asking
	// again for what is still short (see Retry and Grace); 0 audits once
	// (none when no archive took a request) and asks nothing again.
	Wait time.Duration
	// WaitEvery defaults to DefaultWaitEvery.
	WaitEvery time.Duration
	// Retry is how long after a failed request a page may be asked for
	// again, doubled after each failure of it; defaults to DefaultRetry.
	Retry time.Duration
	// Grace is how long a capture the archive took may take to show in
	// its listing before the page is asked for again (until then its
	// blocks count as coming); defaults to DefaultGrace.
	Grace time.Duration
	// Attempts bounds the requests for one page to one archive in a run;
	// defaults to DefaultAttempts.
	Attempts int
	// Expect, if set, is the generation the live site should serve (the
	// one inject made last): Run waits up to WaitLive, reading the root
	// page every LiveEvery, for the live site to serve it before asking
	// anything, and fails with ErrNotLive otherwise. "" takes whatever
	// the live site serves.
	Expect    string
	WaitLive  time.Duration
	LiveEvery time.Duration
	// Progress, if set, is called at each phase and with every job's
	// outcome as it is known.
	Progress func(Progress)
}

// Progress is one step of a running Run.
type Progress struct {
	// Phase is "live" (waiting for the live site to serve Expect),
	// "crawl", "audit", "plan" (Report is set: the plan is made, nothing
	// sent yet), "retry" (Pages are asked for again), "job" (Job is set)
	// or "wait".
	Phase  string
	Report *Report
	Job    *Job
	Pages  []Page
	// Audits counts the audits of the archives so far.
	Audits int
}

// Job is the outcome of one capture request.
type Job struct {
	URL string `json:"url"`
	// Archive is the archive asked (the requester's source name), and
	// Attempt the request's number for this page and archive in the run
	// (1 the first).
	Archive string `json:"archive"`
	Attempt int    `json:"attempt"`
	// State is "success", "accepted" (taken, no capture named: the
	// listing confirms it), "error", "abandoned" (still pending when the
	// run stopped waiting for it) or "not-sent".
	State string `json:"state"`
	JobID string `json:"job_id,omitempty"`
	// Time is the capture's timestamp, on success.
	Time  time.Time `json:"time,omitzero"`
	Error string    `json:"error,omitempty"`
}

// Report is what RequestCaptures planned, sent and found.
type Report struct {
	Site       string    `json:"site"`
	Generation string    `json:"generation"`
	Time       time.Time `json:"time"` // the generation's
	Margin     int       `json:"margin"`
	// Carriers counts the live pages carrying the generation's blocks or
	// manifest where the Internet Archive would keep them: the most
	// requests a plan makes.
	Carriers int `json:"carriers"`
	// ManifestArchived reports that an archive held the generation's
	// manifest before any request.
	ManifestArchived bool `json:"manifest_archived"`
	// Stripes are every stripe's blocks archived before the requests and
	// planned.
	Stripes []Stripe `json:"stripes"`
	// Plan are the pages to capture, in order.
	Plan []Page `json:"plan"`
	// Short names the stripes the plan cannot bring to their need (the
	// live pages do not carry enough blocks), the first few.
	Short  []string `json:"short,omitempty"`
	DryRun bool     `json:"dry_run,omitempty"`
	// Jobs are the requests' outcomes, round by round, each round in its
	// plan's order.
	Jobs []Job `json:"jobs,omitempty"`
	// Sent counts the requests the archives took (jobs started, or
	// requests without keys accepted); Captured those the archive says
	// captured their page, Failed those that failed (the others were
	// abandoned, not sent, or accepted without a capture named).
	Sent     int `json:"sent"`
	Captured int `json:"captured"`
	Failed   int `json:"failed"`
	// Requests say what each archive was asked in this run.
	Requests []Requests `json:"requests,omitempty"`
	// Rounds counts the rounds of requests: the first, then each round
	// of retries.
	Rounds int `json:"rounds"`
	// Live is when the crawl found the live site serving the generation.
	Live time.Time `json:"live"`
	// Confirmed is when an audit of this run first found the generation
	// recoverable from the archives combined (zero if none did), and
	// HeldBy the archives the last audit found holding it each alone.
	Confirmed time.Time           `json:"confirmed,omitzero"`
	HeldBy    []status.SourceHold `json:"held_by,omitempty"`
	// Warnings name the sources the first audit could not read (the plan
	// ignores what they hold).
	Warnings []string `json:"warnings,omitempty"`
	// Stopped says why requests stopped before the plan's end, if they
	// did.
	Stopped string `json:"stopped,omitempty"`
	// Audits counts the audits of the archives (before and after).
	Audits int `json:"audits"`
	// Safe reports that the last audit found the generation the newest
	// and recoverable from the archives.
	Safe bool `json:"safe"`
	// Status is the last audit's report.
	Status *status.Report `json:"status,omitempty"`
}

// Requests are what one archive was asked in a run.
type Requests struct {
	Archive string `json:"archive"`
	// Keyed reports requests with the user's keys (else without).
	Keyed bool      `json:"keyed"`
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Sent counts the requests sent, Taken those the archive took,
	// Captured those it says captured their page, Failed those that
	// failed.
	Sent     int `json:"sent"`
	Taken    int `json:"taken"`
	Captured int `json:"captured"`
	Failed   int `json:"failed"`
	// Stopped says why requests to it stopped early, if they did.
	Stopped string `json:"stopped,omitempty"`
}

// Run asks the archives that capture on request (the Internet Archive's
// Save Page Now first) to capture the live pages that matter for the
// site's newest generation, asks again for what fails, and audits the
// archives until they hold it: the capture-and-confirm loop.
//
// It crawls the live site as Verify does to learn the newest generation
// (waiting for it to be Expect, if set) and which pages carry which of
// its blocks and its manifest, and audits the archives as Status does to
// learn which of those they already hold. It plans the pages in order of
// marginal value (capturePlan): the page carrying the manifest, root
// first, unless an archive holds the manifest; then carriers, greedily,
// until every stripe would have k + Margin distinct blocks. Only the
// site's own pages are planned, never more than its carrier pages.
// Without a requester it stops there (a dry run). Otherwise it sends the
// plan to each requester (which keeps to its archive's limits), reports
// every request through Progress, and audits the archives again, every
// WaitEvery within Wait; after each audit that finds the generation
// short it plans again, counting the blocks of pages an archive took
// less than Grace ago as coming, and asks each archive for the pages due
// again (a failure waits Retry, doubled after each, a page is asked for
// at most Attempts times).
//
// The report is returned whenever the crawl and the first audit ran.
// The error wraps ErrSourcesFailed, before any plan, when the first audit
// could read no source (Warnings name those that failed when others
// did not), or ErrNotLive when the live site never served Expect. It is
// nil when the generation is the newest and recoverable from the
// archives (or on a dry run), wraps ErrShort when it is not yet (and
// the error that stopped the requests, such as spn.ErrDailyLimit or
// spn.ErrKeysRequired, if one did), wraps spn.ErrRefused when the access
// key was refused or spn.ErrUnreachable when no requester could be
// reached, and is ctx's error when ctx ended the run.
func Run(ctx context.Context, o Options) (*Report, error) {
	o, err := o.normalized()
	if err != nil {
		return nil, err
	}
	if o.Status.StateDir == "" && len(o.Requesters) > 0 {
		dir, err := os.MkdirTemp("", "lazarus-capture-")
		if err != nil {
			return nil, fmt.Errorf("a directory for the audits' cache: %w", err)
		}
		defer os.RemoveAll(dir)
		o.Status.StateDir = dir
	}
	live, seen, err := o.liveGeneration(ctx)
	if err != nil {
		return nil, err
	}
	rep := &Report{Site: live.Report.Site, Generation: live.ID.String(), Time: live.Time.UTC(), Margin: max(o.Margin, 0),
		Stripes: []Stripe{}, Plan: []Page{}, Carriers: len(live.Pages), Live: seen.UTC()}
	o.progress(Progress{Phase: "audit"})
	arch, err := auditArchives(ctx, o.Status)
	if err != nil {
		return nil, err
	}
	rep.Audits = 1
	rep.observe(arch, live.ID)
	if c := arch.report.Cause; c != nil && c.Kind == status.CauseSourcesFailed {
		return rep, fmt.Errorf("%w: %s", ErrSourcesFailed, c.Message)
	}
	rep.Warnings = sourceWarnings(arch.report)
	rep.ManifestArchived = arch.Manifests[live.ID]
	needs := stripeNeeds(live.Segments, arch.Shards, rep.Margin)
	rep.Plan = capturePlan(live.Pages, needs, rep.ManifestArchived, o.Max)
	if rep.Plan == nil {
		rep.Plan = []Page{}
	}
	rep.Stripes = stripeReport(needs)
	rep.Short = captureShort(rep.Stripes, 5)
	rep.DryRun = len(o.Requesters) == 0
	o.progress(Progress{Phase: "plan", Report: rep, Audits: rep.Audits})
	switch {
	case rep.DryRun:
		return rep, nil
	case len(rep.Plan) == 0 && rep.Safe:
		return rep, nil
	case len(rep.Plan) == 0:
		return rep, rep.shortError(nil) // nothing the live pages carry would help
	}
	l := newLoop(&o, rep, live)
	stop, err := l.run(ctx)
	if err != nil {
		return rep, err
	}
	if rep.Safe {
		return rep, nil
	}
	return rep, rep.shortError(stop)
}

// normalized fills the defaults and checks o.
func (o Options) normalized() (Options, error) {
	switch {
	case o.Margin < NoMargin:
		return o, fmt.Errorf("capture margin %d: want 0 or more (or NoMargin)", o.Margin)
	case o.Margin == 0:
		o.Margin = DefaultMargin
	case o.Margin == NoMargin:
		o.Margin = 0
	}
	if o.Max < 0 || o.Wait < 0 || o.WaitEvery < 0 || o.Retry < 0 || o.Grace < 0 || o.Attempts < 0 || o.WaitLive < 0 || o.LiveEvery < 0 {
		return o, errors.New("negative capture bound or wait")
	}
	o.Status.Now = time.Time{} // the archives as they stand at each audit (see Status)
	setDefault(&o.WaitEvery, DefaultWaitEvery)
	setDefault(&o.Retry, DefaultRetry)
	setDefault(&o.Grace, DefaultGrace)
	setDefault(&o.Attempts, DefaultAttempts)
	setDefault(&o.LiveEvery, DefaultLiveEvery)
	if o.Requesters == nil && o.SPN != nil {
		o.Requesters = []ondemand.Requester{o.SPN}
	}
	s := &o.Status
	if s.SiteURL == "" {
		s.SiteURL = o.Verify.SiteURL
	}
	if len(s.ServerKey)+len(s.OwnerKey)+len(s.Passphrase) == 0 {
		s.ServerKey, s.OwnerKey, s.Passphrase = o.Verify.ServerKey, o.Verify.OwnerKey, o.Verify.Passphrase
	}
	return o, nil
}

func setDefault[T int | time.Duration](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

func (o *Options) progress(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// liveGeneration crawls the live site for its newest generation. With
// Expect it first reads the root page alone, every LiveEvery within
// WaitLive, until it serves Expect (a deploy in progress, a cache not yet
// refreshed), and fails with ErrNotLive if it never does. It returns when
// the live site was seen serving the generation.
func (o *Options) liveGeneration(ctx context.Context) (*verify.LiveGeneration, time.Time, error) {
	if o.Expect != "" {
		root := o.Verify
		root.MaxPages = 1
		deadline := time.Now().Add(o.WaitLive)
		for {
			g, err := verify.Live(ctx, root)
			if err == nil && g.ID.String() == o.Expect {
				break
			}
			if ctx.Err() != nil {
				return nil, time.Time{}, ctx.Err()
			}
			left := time.Until(deadline)
			if left <= 0 {
				serves := fmt.Sprintf("no generation signed by the key, as far as it could be read (%v)", err)
				if err == nil {
					serves = "generation " + g.ID.String()
				}
				waited := humane.Duration(o.WaitLive)
				if o.WaitLive < time.Minute {
					waited = o.WaitLive.String()
				}
				return nil, time.Time{}, fmt.Errorf("%w: after %s it still serves %s, not %s, the one inject made last", ErrNotLive, waited, serves, o.Expect)
			}
			o.progress(Progress{Phase: "live"})
			if err := fetch.Sleep(ctx, min(o.LiveEvery, left)); err != nil {
				return nil, time.Time{}, err
			}
		}
	}
	o.progress(Progress{Phase: "crawl"})
	live, err := verify.Live(ctx, o.Verify)
	if err != nil {
		return nil, time.Time{}, err
	}
	if o.Expect != "" && live.ID.String() != o.Expect {
		return nil, time.Time{}, fmt.Errorf("%w: the crawl found generation %s, not %s", ErrNotLive, live.ID, o.Expect)
	}
	return live, time.Now(), nil
}

// observe takes an audit's verdict on generation id into the report.
func (rep *Report) observe(arch *archived, id manifest.ID) {
	rep.Status, rep.Safe = arch.report, arch.safe(id)
	if rep.Safe && rep.Confirmed.IsZero() {
		rep.Confirmed = time.Now().UTC()
	}
	rep.HeldBy = nil
	for _, g := range arch.report.Generations {
		if g.ID == id.String() {
			rep.HeldBy = g.HeldBy
		}
	}
}

// shortError says what the last audit still lacks, wrapping
// ErrCaptureShort and the error that stopped the requests, if any.
func (rep *Report) shortError(stop error) error {
	var why []string
	for _, g := range rep.Status.Generations {
		if g.ID == rep.Generation {
			why = append(why, g.Short...)
		}
	}
	if len(why) == 0 {
		why = append(why, "the archives list no capture holding generation "+rep.Generation+" yet")
	}
	msg := fmt.Sprintf("%s accepted, %d captured, after %s: %s", humane.Count(rep.Sent, "capture request"), rep.Captured, humane.Count(rep.Audits, "audit"), strings.Join(why, "; "))
	if len(rep.Plan) == 0 {
		msg = "no live page carries blocks or a manifest the archives lack: " + strings.Join(why, "; ")
	}
	if stop != nil {
		return fmt.Errorf("%w: %s; requests stopped: %w", ErrShort, msg, stop)
	}
	return fmt.Errorf("%w: %s", ErrShort, msg)
}

// sourceWarnings names the sources an audit could not read (listing
// failed), as Status's cause does when all of them failed.
func sourceWarnings(r *status.Report) []string {
	var out []string
	for _, s := range r.Sources {
		if s.Error != "" && s.Captures == 0 {
			out = append(out, fmt.Sprintf("source %s: cannot be read: %s; the plan counts none of its captures", s.Name, s.Error))
		}
	}
	return out
}
