package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/caddyserver/caddy/v2"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
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
// The first audit runs auditFirstDelay (a minute) after start, or a
// period after the last stored audit of the same configuration if that
// is later, then every period. An audit that cannot judge the archives
// (an error; every source failed; the key is not the site's) counts as
// caddy_lazarus_audits_total{result="failed"}, is logged at error level
// with its cause, and leaves the gauges as they were.
type Audit struct {
	// Every is how often the audit runs (a duration), at least 1 hour.
	// Defaults to 24 hours.
	Every caddy.Duration `json:"every,omitempty"`
	// Sources are the archives audited, as `lazarus status --source`
	// takes them: wayback[=BASE], commoncrawl[=INDEX[,DATA]],
	// cdx=URL[,REPLAY] (a Wayback base or a CDX endpoint such as
	// https://host/coll/cdx), pywb=URL[,REPLAY], memento=TIMEMAP_BASE,
	// warc=PATH, dir=PATH. Defaults to wayback and commoncrawl.
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
	// CaptureRequests, if set, asks the Internet Archive's Save Page Now
	// to capture the pages that make each new generation safe, once per
	// generation (see CaptureRequests). Defaults to off.
	CaptureRequests *CaptureRequests `json:"capture_requests,omitempty"`
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
	if a.SiteURL != "" && !absHTTPURL(a.SiteURL) {
		errs = append(errs, fmt.Errorf("lazarus: audit_site_url %q must be an absolute http(s) URL such as https://example.org/", a.SiteURL))
	}
	if a.Key != "" && a.PassphraseFile != "" {
		errs = append(errs, errors.New("lazarus: audit: give audit_key or audit_passphrase_file, not both"))
	}
	if a.Key == "" && a.PassphraseFile == "" && h.Build == nil {
		errs = append(errs, errors.New("lazarus: audit: with a bundle, give audit_key (server.key) or audit_passphrase_file"))
	}
	switch {
	case h.MaxOverlap < 0:
		errs = append(errs, fmt.Errorf("lazarus: max_overlap %s is negative", time.Duration(h.MaxOverlap)))
	case h.MaxOverlap > 0 && h.MaxOverlap < h.Overlap:
		errs = append(errs, fmt.Errorf("lazarus: max_overlap %s is shorter than overlap %s", time.Duration(h.MaxOverlap), time.Duration(h.Overlap)))
	}
	if c := a.CaptureRequests; c != nil {
		errs = append(errs, c.validate())
	}
	return errors.Join(errs...)
}

// absHTTPURL reports whether s is an absolute http(s) URL, as a site URL
// must be.
func absHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// auditSource parses one audit_source spec as `lazarus status --source`
// (recover.ParseArchiveSource, its error worded for the option): the
// live site is not an archive.
func auditSource(spec string, client source.Doer) (source.Source, error) {
	src, err := source.ParseArchive(spec, client)
	if err != nil {
		return nil, fmt.Errorf("audit_%w", err)
	}
	return src, nil
}

// auditor runs the audit on its schedule.
type auditor struct {
	h     *Handler
	cfg   *Audit
	every time.Duration
	// firstDelay is auditFirstDelay (tests shorten it).
	firstDelay time.Duration
	client     source.Doer
	mu         sync.Mutex
	cancel     context.CancelFunc
	done       chan struct{}
	// badLast logs a stored summary that is not sane, once; otherConfig
	// one of another configuration.
	badLast, otherConfig sync.Once
	// capturer makes the capture requests, if configured (capture.go).
	capturer *capturer
}

func newAuditor(h *Handler) *auditor {
	a := &auditor{h: h, cfg: h.Audit, every: time.Duration(h.Audit.Every), firstDelay: auditFirstDelay}
	if a.every == 0 {
		a.every = DefaultAuditEvery
	}
	a.client = source.NewClient(source.ClientOptions{Contact: h.Audit.Contact})
	if h.Audit.CaptureRequests != nil {
		a.capturer = newCapturer(a)
	}
	return a
}

// start runs the schedule until stop.
func (a *auditor) start(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, a.cancel = context.WithCancel(ctx)
	a.done = make(chan struct{})
	go a.loop(ctx)
	if a.capturer != nil {
		a.capturer.start(ctx)
	}
}

// stop ends the schedule and waits for it (an audit in progress is
// cancelled).
func (a *auditor) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
		<-a.done
		if a.capturer != nil {
			a.capturer.stop()
		}
		a.cancel = nil
	}
}

// loaded tells the auditor the handler loaded a new generation: it is
// recorded published (if no instance did before), and capture requests
// follow, if configured.
func (a *auditor) loaded() {
	if g := a.h.gen.Load(); g != nil {
		a.h.background.Add(1)
		go func() {
			defer a.h.background.Done()
			a.h.notePublished(a.h.ctx, g)
		}()
	}
	if a.capturer != nil {
		a.capturer.wakeUp()
	}
}

// loop audits every period, starting auditFirstDelay after start or a
// period after the last audit (stored, by any instance, of the same
// configuration), whichever is later; between audits it keeps the age
// gauge current, once a minute. A failed audit leaves the gauges as they
// were (the last successful audit's, or unset) and counts
// audits_total{result="failed"}.
func (a *auditor) loop(ctx context.Context) {
	defer close(a.done)
	next := a.h.now().Add(a.firstDelay)
	var last *auditSummary
	if _, fp, err := a.options(); err == nil { // else no site URL yet: runShared checks then
		if s, err := a.loadLast(ctx, fp); err == nil {
			last = s
			a.export(last)
			a.noteEvidence(ctx, last)
			next = later(next, last.Time.Add(a.every))
		}
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
			fields := []zap.Field{zap.Error(err), zap.Duration("retry_in", a.every)}
			if f := (*auditFailure)(nil); errors.As(err, &f) {
				fields = append(fields, zap.String("cause", f.cause.Kind))
			}
			a.h.logger.Error("audit failed: the metrics keep the last successful audit's values", fields...)
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
	Time time.Time `json:"time"`
	// Config is the fingerprint of the audit's configuration (see
	// auditor.options): a summary of another configuration is as good as
	// none, so fixing the configuration and reloading audits anew.
	Config       string             `json:"config,omitempty"`
	Newest       string             `json:"newest,omitempty"`
	RestorePoint string             `json:"restore_point,omitempty"`
	RestoreTime  time.Time          `json:"restore_time,omitzero"` // the restore point's generation time
	Probability  map[string]float64 `json:"probability,omitempty"`
	Archived     int                `json:"archived"`
	Needed       int                `json:"needed"`
}

// Bounds of the stored summary read back.
const (
	maxSummaryBytes = 64 << 10
	// maxSummarySkew is how far in the future a summary's time may be
	// (clocks of instances sharing storage differ a little); one later
	// would stop every instance's audit until then.
	maxSummarySkew = 5 * time.Minute
	// maxSummaryBlocks bounds the block counts: far more than any
	// generation holds.
	maxSummaryBlocks = 1 << 30
)

func (a *auditor) lastKey() string { return a.h.storagePrefix() + "audit/last" }

// loadLast reads the last audit's summary from storage. A summary that
// is not sane is as good as none (the audit runs), and logged once; so
// is one of a configuration other than fp (sources, key, site URL).
func (a *auditor) loadLast(ctx context.Context, fp string) (*auditSummary, error) {
	v, err := loadLimited(ctx, a.h.storage, a.lastKey(), maxSummaryBytes)
	if err != nil {
		return nil, err
	}
	s, err := parseSummary(v, a.h.now())
	if err != nil {
		a.badLast.Do(func() {
			a.h.logger.Warn("ignoring the stored audit summary", zap.String("key", a.lastKey()), zap.Error(err))
		})
		return nil, err
	}
	if s.Config != fp {
		a.otherConfig.Do(func() {
			a.h.logger.Info("the stored audit result is of another audit configuration (sources, key or site URL): auditing anew",
				zap.Time("stored_audit", s.Time), zap.Duration("first_delay", a.firstDelay))
		})
		return nil, errOtherConfig
	}
	return s, nil
}

// errOtherConfig is a stored summary of another audit configuration.
var errOtherConfig = errors.New("audit summary: another configuration's")

// parseSummary reads a stored summary (shared storage: checked, never
// trusted to be sane) as of now: its time is not after now (but for
// maxSummarySkew), its restore point's time not after its own, its
// generations are generation ids, its counts and probabilities in range.
func parseSummary(v []byte, now time.Time) (*auditSummary, error) {
	if len(v) > maxSummaryBytes {
		return nil, fmt.Errorf("audit summary: %d bytes", len(v))
	}
	var s auditSummary
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("audit summary: %w", err)
	}
	switch {
	case s.Time.IsZero():
		return nil, errors.New("audit summary: no time")
	case s.Time.After(now.Add(maxSummarySkew)):
		return nil, fmt.Errorf("audit summary: time %s is in the future", s.Time.UTC().Format(time.RFC3339))
	case s.RestoreTime.After(s.Time):
		return nil, fmt.Errorf("audit summary: restore point of %s, after the audit", s.RestoreTime.UTC().Format(time.RFC3339))
	case s.RestorePoint != "" && s.RestoreTime.IsZero():
		return nil, errors.New("audit summary: restore point without a time")
	case !summaryID(s.Newest) || !summaryID(s.RestorePoint):
		return nil, errors.New("audit summary: a generation is not a generation id")
	case len(s.Config) > 128:
		return nil, errors.New("audit summary: configuration fingerprint too long")
	}
	ok := s.Archived >= 0 && s.Needed >= 0 && s.Archived <= s.Needed && s.Needed <= maxSummaryBlocks && len(s.Probability) <= 8
	for view, p := range s.Probability {
		ok = ok && len(view) <= 32 && finite(p) && p >= 0 && p <= 1
	}
	if !ok {
		return nil, errors.New("audit summary: out of range")
	}
	return &s, nil
}

// summaryID reports whether id is "" or a generation id.
func summaryID(id string) bool {
	if id == "" {
		return true
	}
	_, err := manifest.ParseID(id)
	return err == nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// runShared audits unless another instance did within the period: one
// instance at a time holds the storage lock lazarus/NAME/audit.
//
// A successful audit's summary is stored, counted
// (audits_total{result="done"}) and logged; a failed one (an error, or a
// report whose Cause says the archives could not be read: see
// auditFailure) is neither stored nor exported.
func (a *auditor) runShared(ctx context.Context) (*auditSummary, error) {
	o, fp, err := a.options()
	if err != nil {
		return nil, err
	}
	lock := a.h.storagePrefix() + "audit"
	if err := a.h.storage.Lock(ctx, lock); err != nil {
		return nil, fmt.Errorf("audit lock: %w", err)
	}
	defer a.h.storage.Unlock(context.WithoutCancel(ctx), lock)
	if last, err := a.loadLast(ctx, fp); err == nil && a.h.now().Sub(last.Time) < a.every-auditFirstDelay {
		return last, nil
	}
	o.Now = a.h.now()
	sum, err := a.run(ctx, o)
	if err != nil {
		return nil, err
	}
	sum.Config = fp
	v, _ := json.Marshal(sum)
	if err := a.h.storage.Store(ctx, a.lastKey(), v); err != nil {
		a.h.logger.Warn("storing the audit summary", zap.Error(err))
	}
	a.noteEvidence(ctx, sum)
	a.h.metrics.audits.WithLabelValues(a.h.Name, "done").Inc()
	a.logDone(sum)
	return sum, nil
}

// auditFailure is an audit whose report says nothing is recoverable for
// a reason other than what the archives hold (status.Report.Cause:
// every source failed, or the key is not the site's): it says nothing of
// the backup, so it is a failed audit, not one finding no backup.
type auditFailure struct{ cause *status.Cause }

func (e *auditFailure) Error() string {
	return fmt.Sprintf("audit: the archives could not be judged (%s): %s", e.cause.Kind, e.cause.Message)
}

// run performs one audit with o.
func (a *auditor) run(ctx context.Context, o status.Options) (*auditSummary, error) {
	if err := a.current(ctx); err != nil {
		return nil, err
	}
	rep, err := status.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, s := range rep.Sources {
		if s.Error != "" {
			a.h.logger.Warn("audit source", zap.String("source", s.Name), zap.String("error", s.Error))
		}
	}
	if c := rep.Cause; c != nil {
		return nil, &auditFailure{cause: c}
	}
	a.h.noteAudit(ctx, rep, o.Now)
	return summarize(rep), nil
}

// logDone logs a successful audit's outcome: "recoverable" (the newest
// generation is the restore point), "behind" (an older one is) or "none"
// (no generation is recoverable from the archives).
func (a *auditor) logDone(s *auditSummary) {
	outcome := "none"
	switch {
	case s.RestorePoint != "" && s.RestorePoint == s.Newest:
		outcome = "recoverable"
	case s.RestorePoint != "":
		outcome = "behind"
	}
	fields := []zap.Field{zap.String("outcome", outcome), zap.String("newest", s.Newest),
		zap.Int("blocks_archived", s.Archived), zap.Int("blocks_needed", s.Needed)}
	if s.RestorePoint != "" {
		fields = append(fields, zap.String("restore_point", s.RestorePoint),
			zap.Duration("restore_point_age", max(0, a.h.now().Sub(s.RestoreTime)).Round(time.Second)))
	}
	for _, view := range slices.Sorted(maps.Keys(s.Probability)) {
		fields = append(fields, zap.Float64("p_rec_"+view, s.Probability[view]))
	}
	level := zap.InfoLevel
	if outcome != "recoverable" {
		level = zap.WarnLevel
	}
	a.h.logger.Log(level, "audited the archives", fields...)
}

// current stores the manifest of the generation the module serves now in
// its serve history, if it is not there: status takes the newest
// generation from the history's manifests (the audit never asks the live
// site), so an older archived generation never passes for the newest,
// whatever page versions were recorded.
func (a *auditor) current(ctx context.Context) error {
	g := a.h.current()
	if g == nil {
		return errors.New("audit: no generation loaded yet, so none to compare the archives with")
	}
	if err := storeManifest(ctx, a.h.history.st, g); err != nil {
		return fmt.Errorf("audit: recording generation %s's manifest in the serve history: %w", g.id, err)
	}
	return nil
}

// options are the status options of one audit, and the fingerprint of
// the configuration they come from: the sources, the key's id (or the
// passphrase file's path: a passphrase's hash would help guess it) and
// the site URL, hashed.
func (a *auditor) options() (status.Options, string, error) {
	o := status.Options{
		SiteURL:  a.siteURL(),
		History:  []history.Store{a.h.history.st},
		StateDir: filepath.Join(caddy.AppDataDir(), "lazarus", a.h.Name, "audit"),
		Now:      a.h.now(),
		// The module's own history names the generations it serves, the
		// current one always (see current): the audit never asks the live
		// site (itself) which one is newest.
		NoLive: true,
	}
	if o.SiteURL == "" {
		return o, "", errors.New("audit: no site URL yet (no generation loaded); give audit_site_url")
	}
	specs := a.cfg.Sources
	if len(specs) == 0 {
		specs = []string{"wayback", "commoncrawl"}
	}
	for _, spec := range specs {
		src, err := auditSource(spec, a.client)
		if err != nil {
			return o, "", err
		}
		o.Sources = append(o.Sources, src)
	}
	id, err := a.secret(&o)
	if err != nil {
		return o, "", err
	}
	return o, auditFingerprint(specs, id, o.SiteURL), nil
}

// auditFingerprint hashes an audit's configuration.
func auditFingerprint(sources []string, keyID, siteURL string) string {
	h := sha256.New()
	for _, s := range append([]string{keyID, siteURL}, sources...) {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
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
// It returns what identifies it: the key id, or the passphrase file's
// absolute path.
func (a *auditor) secret(o *status.Options) (string, error) {
	key, pass := a.cfg.Key, a.cfg.PassphraseFile
	if key == "" && pass == "" && a.h.Build != nil {
		key, pass = a.h.Build.Key, a.h.Build.PassphraseFile
	}
	if key != "" {
		srv, _, err := keys.LoadServer(key)
		if err != nil {
			return "", fmt.Errorf("audit key: %w", err)
		}
		o.ServerKey = srv.Marshal()
		return "key " + keys.FormatKeyID(srv.KeyID()), nil
	}
	p, _, err := keys.ReadPassphraseFile(pass)
	if err != nil {
		return "", fmt.Errorf("audit passphrase_file: %w", err)
	}
	o.Passphrase = p
	if abs, err := filepath.Abs(pass); err == nil {
		pass = abs
	}
	return "passphrase " + pass, nil
}

// summarize is what the metrics show of a report.
func summarize(rep *status.Report) *auditSummary {
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
