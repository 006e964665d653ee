package capture

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// Defaults of CaptureRequestOptions.
const (
	// DefaultMargin is CaptureRequestOptions.Margin's default: blocks
	// beyond k per stripe, against captures that turn out damaged or
	// lost.
	DefaultMargin = 2
	// NoMargin, as CaptureRequestOptions.Margin, asks for k blocks per
	// stripe exactly.
	NoMargin = -1
	// DefaultWaitEvery is CaptureRequestOptions.WaitEvery's default.
	DefaultWaitEvery = 5 * time.Minute
)

// ErrShort means the archives do not yet hold the newest
// generation safely: the error says what is still short. Captures can
// take minutes to hours to show in the archive's index.
var ErrShort = errors.New("the archives do not yet hold the newest generation safely")

// ErrSourcesFailed means no archive could be read (every source failed
// to list the site): a plan would take the archives for empty.
var ErrSourcesFailed = errors.New("no archive could be read")

// Options configure RequestCaptures.
type Options struct {
	// Verify says how the live site is crawled, as for Verify (SiteURL,
	// one of the keys, Client, Rate, SkipQuery, the bounds); its hygiene
	// checks, History, SiteDir and trial restore are not used.
	Verify verify.Options
	// Status says how the archives are audited, as for Status (Sources,
	// History, StateDir, Client, …); its SiteURL and key default to
	// Verify's. Its Now is ignored: the requests are made now, and each
	// audit reads the archives as they stand then.
	Status status.Options
	// SPN submits the capture requests; nil makes a plan and sends
	// nothing (a dry run).
	SPN *spn.Client
	// Margin is the blocks wanted beyond k in every stripe (at most the
	// stripe's k + m); 0 defaults to DefaultCaptureMargin, NoCaptureMargin
	// asks for k.
	Margin int
	// Max bounds the capture requests; 0 means no bound beyond the
	// carrier pages (there are never more requests than carrier pages).
	Max int
	// Wait, after the jobs, keeps auditing the archives every WaitEvery
	// until they hold the generation safely or Wait has passed; 0 audits
	// once.
	Wait time.Duration
	// WaitEvery defaults to DefaultCaptureWaitEvery.
	WaitEvery time.Duration
	// Progress, if set, is called at each phase and with every job's
	// outcome as it is known.
	Progress func(Progress)
}

// Progress is one step of a running RequestCaptures.
type Progress struct {
	// Phase is "crawl", "audit", "plan" (Report is set: the plan is
	// made, nothing sent yet), "job" (Job is set) or "wait".
	Phase  string
	Report *Report
	Job    *Job
	// Audits counts the audits of the archives so far.
	Audits int
}

// Job is the outcome of one capture request.
type Job struct {
	URL string `json:"url"`
	// State is "success", "error", "abandoned" (still pending when the
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
	// Jobs are the requests' outcomes, in the plan's order.
	Jobs []Job `json:"jobs,omitempty"`
	// Sent counts the requests the archive accepted (jobs started);
	// Captured the jobs that captured their page, Failed those that
	// failed (the others were abandoned or not sent).
	Sent     int `json:"sent"`
	Captured int `json:"captured"`
	Failed   int `json:"failed"`
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

// Run asks the Internet Archive's Save Page Now to capture the live
// pages that matter for the site's newest generation, then audits the
// archives until they hold it.
//
// It crawls the live site as Verify does to learn the newest generation
// and which pages carry which of its blocks and its manifest, and audits
// the archives as Status does to learn which of those they already hold.
// It plans the pages in order of marginal value (capturePlan): the page
// carrying the manifest, root first, unless an archive holds the
// manifest; then carriers, greedily, until every stripe would have
// k + Margin distinct blocks. Only the site's own pages are planned,
// never more than its carrier pages. Without o.SPN it stops there (a dry
// run). Otherwise it submits the plan (the client honours the API's
// limits), reports every job through Progress, and audits the archives
// again, every WaitEvery within Wait.
//
// The report is returned whenever the crawl and the first audit ran.
// The error wraps ErrSourcesFailed, before any plan, when the first audit
// could read no source (Warnings name those that failed when others
// did not). It is nil when the generation is the newest and recoverable
// from the archives (or on a dry run), wraps ErrCaptureShort when it is
// not yet (and spn.ErrDailyLimit or spn.ErrHostPaused when the archive
// stopped the requests), wraps spn.ErrRefused when the access key was
// refused, and is ctx's error when ctx ended the run.
func Run(ctx context.Context, o Options) (*Report, error) {
	o, err := o.normalized()
	if err != nil {
		return nil, err
	}
	o.progress(Progress{Phase: "crawl"})
	live, err := verify.Live(ctx, o.Verify)
	if err != nil {
		return nil, err
	}
	rep := &Report{Site: live.Report.Site, Generation: live.ID.String(), Time: live.Time.UTC(), Margin: max(o.Margin, 0), Stripes: []Stripe{}, Plan: []Page{}}
	rep.Carriers = len(live.Pages)
	o.progress(Progress{Phase: "audit"})
	arch, err := auditArchives(ctx, o.Status)
	if err != nil {
		return nil, err
	}
	rep.Audits, rep.Status = 1, arch.report
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
	rep.Safe, rep.DryRun = arch.safe(live.ID), o.SPN == nil
	o.progress(Progress{Phase: "plan", Report: rep, Audits: rep.Audits})
	switch {
	case rep.DryRun:
		return rep, nil
	case len(rep.Plan) == 0 && rep.Safe:
		return rep, nil
	case len(rep.Plan) == 0:
		return rep, rep.shortError(nil) // nothing the live pages carry would help
	}
	stop := o.send(ctx, rep)
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if errors.Is(stop, spn.ErrRefused) || errors.Is(stop, spn.ErrUnreachable) {
		return rep, stop
	}
	if err := o.await(ctx, rep, live.ID); err != nil {
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
		return o, fmt.Errorf("capture margin %d: want 0 or more (or NoCaptureMargin)", o.Margin)
	case o.Margin == 0:
		o.Margin = DefaultMargin
	case o.Margin == NoMargin:
		o.Margin = 0
	}
	if o.Max < 0 || o.Wait < 0 || o.WaitEvery < 0 {
		return o, errors.New("negative capture bound or wait")
	}
	o.Status.Now = time.Time{} // the archives as they stand at each audit (see Status)
	if o.WaitEvery == 0 {
		o.WaitEvery = DefaultWaitEvery
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

func (o *Options) progress(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// send submits the plan and records every job; it returns the error that
// stopped the requests early, if any.
func (o *Options) send(ctx context.Context, rep *Report) error {
	urls := make([]string, len(rep.Plan))
	at := map[string]int{}
	for i, p := range rep.Plan {
		urls[i], at[p.URL] = p.URL, i
	}
	rep.Jobs = make([]Job, len(urls))
	err := o.SPN.SaveAll(ctx, urls, func(r spn.Result) {
		j := Job{URL: r.URL, State: r.State, JobID: r.JobID, Time: r.Time}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		if r.JobID != "" {
			rep.Sent++
		}
		switch r.State {
		case spn.StateSuccess:
			rep.Captured++
		case spn.StateError:
			rep.Failed++
		}
		rep.Jobs[at[r.URL]] = j
		o.progress(Progress{Phase: "job", Job: &j, Audits: rep.Audits})
	})
	if err != nil {
		rep.Stopped = err.Error()
	}
	return err
}

// await audits the archives again, every WaitEvery within Wait, until
// they hold the generation safely.
func (o *Options) await(ctx context.Context, rep *Report, id manifest.ID) error {
	deadline := time.Now().Add(o.Wait)
	for {
		o.progress(Progress{Phase: "audit", Audits: rep.Audits})
		arch, err := auditArchives(ctx, o.Status)
		if err != nil {
			return err
		}
		rep.Audits++
		rep.Status, rep.Safe = arch.report, arch.safe(id)
		left := time.Until(deadline)
		if rep.Safe || left <= 0 {
			return nil
		}
		o.progress(Progress{Phase: "wait", Audits: rep.Audits})
		if err := fetch.Sleep(ctx, min(o.WaitEvery, left)); err != nil {
			return err
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
