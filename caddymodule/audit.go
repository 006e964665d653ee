package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
	"go.uber.org/zap"
)

// Defaults and bounds of the scheduled audit.
const (
	// DefaultAuditEvery is how often the archives are audited.
	DefaultAuditEvery = 24 * time.Hour
	// MinAuditEvery keeps the audit polite: archives rate-limit, and some
	// ban for good.
	MinAuditEvery = time.Hour
	// auditFirstDelay lets a freshly started instance serve before its
	// first audit, and a burst of config reloads start none.
	auditFirstDelay = time.Minute
)

// Audit configures the handler's scheduled audit of the archives: what
// `lazarus status` does (recover.Status), run in the background on one
// instance at a time, with the serve history in Caddy's storage so
// captures the module produced are known by their digest without being
// fetched. Its result is exported as metrics:
// caddy_lazarus_audit_generation_age_seconds (age of the newest
// generation recoverable from the archives now, −1 if none),
// caddy_lazarus_audit_recoverable_probability{view} (P_rec of the newest
// generation now, by model view: independent, sweep) and
// caddy_lazarus_audit_blocks{kind} (the newest generation's data blocks
// archived, counting at most k per stripe, and needed: k per stripe).
type Audit struct {
	// Every is how often the audit runs (a duration), at least 1 hour.
	// Defaults to 24 hours.
	Every caddy.Duration `json:"every,omitempty"`
	// Sources are the archives audited, as `lazarus status --source`
	// takes them: wayback[=BASE], commoncrawl[=INDEX[,DATA]], cdx=BASE,
	// memento=TIMEMAP_BASE, warc=PATH, dir=PATH. Defaults to wayback and
	// commoncrawl.
	Sources []string `json:"sources,omitempty"`
	// Key is the path of server.key, whose public half verifies what the
	// archives hold. Defaults to the build's key; with a bundle, Key or
	// PassphraseFile is required.
	Key string `json:"key,omitempty"`
	// PassphraseFile is the passphrase of a passphrase-mode site. Defaults
	// to the build's.
	PassphraseFile string `json:"passphrase_file,omitempty"`
	// SiteURL is the site's public URL. Defaults to the build's site_url,
	// else the site the current generation's manifest names.
	SiteURL string `json:"site_url,omitempty"`
	// Contact is added to the User-Agent the archives see, such as an
	// email address. Defaults to none.
	Contact string `json:"contact,omitempty"`
}

// validate checks the audit's options (pure: files are read at start).
func (a *Audit) validate(h *Handler) error {
	var errs []error
	if a.Every != 0 && time.Duration(a.Every) < MinAuditEvery {
		errs = append(errs, fmt.Errorf("lazarus: audit every %s: at least %s, archives rate-limit", time.Duration(a.Every), MinAuditEvery))
	}
	for _, s := range a.Sources {
		if _, err := auditSource(s, nil); err != nil {
			errs = append(errs, fmt.Errorf("lazarus: %w", err))
		}
	}
	if a.Key != "" && a.PassphraseFile != "" {
		errs = append(errs, errors.New("lazarus: audit: give audit_key or audit_passphrase_file, not both"))
	}
	if a.Key == "" && a.PassphraseFile == "" && h.Build == nil {
		errs = append(errs, errors.New("lazarus: audit: with a bundle, give audit_key (server.key) or audit_passphrase_file"))
	}
	return errors.Join(errs...)
}

// auditSource parses one audit_source spec as `lazarus status --source`
// (recover.ParseArchiveSource, its error worded for the option): the
// live site is not an archive.
func auditSource(spec string, client lzrecover.Doer) (lzrecover.Source, error) {
	src, err := lzrecover.ParseArchiveSource(spec, client)
	if err != nil {
		return nil, fmt.Errorf("audit_%w", err)
	}
	return src, nil
}

// auditor runs the audit on its schedule.
type auditor struct {
	h      *Handler
	cfg    *Audit
	every  time.Duration
	client lzrecover.Doer
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func newAuditor(h *Handler) *auditor {
	a := &auditor{h: h, cfg: h.Audit, every: time.Duration(h.Audit.Every)}
	if a.every == 0 {
		a.every = DefaultAuditEvery
	}
	a.client = lzrecover.NewClient(lzrecover.ClientOptions{Contact: h.Audit.Contact})
	return a
}

// start runs the schedule until stop.
func (a *auditor) start(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, a.cancel = context.WithCancel(ctx)
	a.done = make(chan struct{})
	go a.loop(ctx)
}

// stop ends the schedule and waits for it (an audit in progress is
// cancelled).
func (a *auditor) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
		<-a.done
		a.cancel = nil
	}
}

// loop audits every period, starting auditFirstDelay after start or a
// period after the last audit (stored, by any instance), whichever is
// later; between audits it keeps the age gauge current, once a minute.
func (a *auditor) loop(ctx context.Context) {
	defer close(a.done)
	next := a.h.now().Add(auditFirstDelay)
	last, err := a.loadLast(ctx)
	if err == nil {
		a.export(last)
		next = later(next, last.Time.Add(a.every))
	}
	for {
		t := time.NewTimer(min(auditTick, max(0, next.Sub(a.h.now()))))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if a.h.now().Before(next) {
			if last != nil {
				a.export(last)
			}
			continue
		}
		sum, err := a.runShared(ctx)
		if ctx.Err() != nil {
			return
		}
		next = a.h.now().Add(a.every)
		if err != nil {
			a.h.metrics.audits.WithLabelValues(a.h.Name, "failed").Inc()
			a.h.logger.Error("auditing the archives", zap.Error(err), zap.Duration("retry_in", a.every))
			continue
		}
		last = sum
		a.export(sum)
		next = later(next, sum.Time.Add(a.every))
	}
}

// auditTick is how often the age gauge is brought up to date.
const auditTick = time.Minute

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// auditSummary is what the metrics show of one audit, kept in storage
// (lazarus/NAME/audit/last) so instances and restarts share it.
type auditSummary struct {
	Time         time.Time          `json:"time"`
	Newest       string             `json:"newest,omitempty"`
	RestorePoint string             `json:"restore_point,omitempty"`
	RestoreTime  time.Time          `json:"restore_time,omitzero"` // the restore point's generation time
	Probability  map[string]float64 `json:"probability,omitempty"`
	Archived     int                `json:"archived"`
	Needed       int                `json:"needed"`
}

// maxSummaryBytes bounds the stored summary read back.
const maxSummaryBytes = 64 << 10

func (a *auditor) lastKey() string { return a.h.storagePrefix() + "audit/last" }

// loadLast reads the last audit's summary from storage.
func (a *auditor) loadLast(ctx context.Context) (*auditSummary, error) {
	v, err := a.h.storage.Load(ctx, a.lastKey())
	if err != nil {
		return nil, err
	}
	return parseSummary(v)
}

// parseSummary reads a stored summary (shared storage: checked, never
// trusted to be sane).
func parseSummary(v []byte) (*auditSummary, error) {
	if len(v) > maxSummaryBytes {
		return nil, fmt.Errorf("audit summary: %d bytes", len(v))
	}
	var s auditSummary
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("audit summary: %w", err)
	}
	ok := !s.Time.IsZero() && s.Archived >= 0 && s.Needed >= 0 && s.Archived <= s.Needed && len(s.Probability) <= 8
	for view, p := range s.Probability {
		ok = ok && len(view) <= 32 && finite(p) && p >= 0 && p <= 1
	}
	if !ok {
		return nil, errors.New("audit summary: out of range")
	}
	return &s, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// runShared audits unless another instance did within the period: one
// instance at a time holds the storage lock lazarus/NAME/audit.
func (a *auditor) runShared(ctx context.Context) (*auditSummary, error) {
	lock := a.h.storagePrefix() + "audit"
	if err := a.h.storage.Lock(ctx, lock); err != nil {
		return nil, fmt.Errorf("audit lock: %w", err)
	}
	defer a.h.storage.Unlock(context.WithoutCancel(ctx), lock)
	if last, err := a.loadLast(ctx); err == nil && a.h.now().Sub(last.Time) < a.every-auditFirstDelay {
		return last, nil
	}
	sum, err := a.run(ctx)
	if err != nil {
		return nil, err
	}
	v, _ := json.Marshal(sum)
	if err := a.h.storage.Store(ctx, a.lastKey(), v); err != nil {
		a.h.logger.Warn("storing the audit summary", zap.Error(err))
	}
	a.h.metrics.audits.WithLabelValues(a.h.Name, "done").Inc()
	return sum, nil
}

// run performs one audit.
func (a *auditor) run(ctx context.Context) (*auditSummary, error) {
	o, err := a.options()
	if err != nil {
		return nil, err
	}
	rep, err := lzrecover.Status(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, s := range rep.Sources {
		if s.Error != "" {
			a.h.logger.Warn("audit source", zap.String("source", s.Name), zap.String("error", s.Error))
		}
	}
	if c := rep.Cause; c != nil {
		// Nothing is recoverable, but not for what the archives hold: the
		// same cause lazarus status and its HTML page name.
		a.h.logger.Error("audit: nothing recoverable", zap.String("cause", c.Kind), zap.String("error", c.Message))
	}
	return summarize(rep), nil
}

// options are the status options of one audit.
func (a *auditor) options() (lzrecover.StatusOptions, error) {
	o := lzrecover.StatusOptions{
		SiteURL:  a.siteURL(),
		History:  []history.Store{HistoryStore(a.h.storage, a.h.Name)},
		StateDir: filepath.Join(caddy.AppDataDir(), "lazarus", a.h.Name, "audit"),
		Now:      a.h.now(),
		// The module's own history names the generations it serves: the
		// audit never asks the live site (itself) which one is newest.
		NoLive: true,
	}
	if o.SiteURL == "" {
		return o, errors.New("audit: no site URL yet (no generation loaded); give audit_site_url")
	}
	specs := a.cfg.Sources
	if len(specs) == 0 {
		specs = []string{"wayback", "commoncrawl"}
	}
	for _, spec := range specs {
		src, err := auditSource(spec, a.client)
		if err != nil {
			return o, err
		}
		o.Sources = append(o.Sources, src)
	}
	return o, a.secret(&o)
}

// siteURL is the configured site URL, the build's, or the current
// generation's.
func (a *auditor) siteURL() string {
	switch {
	case a.cfg.SiteURL != "":
		return a.cfg.SiteURL
	case a.h.Build != nil && a.h.Build.SiteURL != "":
		return a.h.Build.SiteURL
	}
	if g := a.h.current(); g != nil {
		return g.site
	}
	return ""
}

// secret sets the key that verifies: the audit's own, else the build's.
func (a *auditor) secret(o *lzrecover.StatusOptions) error {
	key, pass := a.cfg.Key, a.cfg.PassphraseFile
	if key == "" && pass == "" && a.h.Build != nil {
		key, pass = a.h.Build.Key, a.h.Build.PassphraseFile
	}
	if key != "" {
		srv, _, err := keys.LoadServer(key)
		if err != nil {
			return fmt.Errorf("audit key: %w", err)
		}
		o.ServerKey = srv.Marshal()
		return nil
	}
	p, _, err := keys.ReadPassphraseFile(pass)
	if err != nil {
		return fmt.Errorf("audit passphrase_file: %w", err)
	}
	o.Passphrase = p
	return nil
}

// summarize is what the metrics show of a report.
func summarize(rep *lzrecover.StatusReport) *auditSummary {
	s := &auditSummary{Time: rep.Now, Newest: rep.Newest}
	if rp := rep.RestorePoint; rp != nil {
		s.RestorePoint, s.RestoreTime = rp.Generation, rp.Time
	}
	for _, g := range rep.Generations {
		if g.ID != rep.Newest {
			continue
		}
		for _, seg := range g.Segments {
			if seg.Listing {
				continue
			}
			for _, st := range seg.PerStripe {
				s.Needed += st.Need
				s.Archived += min(st.Combined, st.Need)
			}
		}
	}
	if as := rep.Assessment; as != nil && as.Error == "" {
		s.Probability = map[string]float64{}
		for _, v := range as.Views {
			for _, p := range v.At {
				if p.After == 0 {
					s.Probability[v.Name] = p.P
				}
			}
		}
	}
	return s
}

// export sets the audit metrics from a summary; the age is the restore
// point's now (see loop).
func (a *auditor) export(s *auditSummary) {
	m, site := a.h.metrics, a.h.Name
	age := -1.0
	if s.RestorePoint != "" {
		age = math.Max(0, a.h.now().Sub(s.RestoreTime).Seconds())
	}
	m.auditAge.WithLabelValues(site).Set(age)
	m.auditBlocks.WithLabelValues(site, "archived").Set(float64(s.Archived))
	m.auditBlocks.WithLabelValues(site, "needed").Set(float64(s.Needed))
	for view, p := range s.Probability {
		m.auditProb.WithLabelValues(site, view).Set(p)
	}
}
