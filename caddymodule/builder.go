package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"go.uber.org/zap"
)

// Defaults of the self-building options.
const (
	DefaultEvery    = time.Hour
	DefaultCarriers = 16
	// firstRetry is the wait after a failed build; it doubles up to Every.
	firstRetry = time.Minute
)

// Build configures generations the handler builds itself, in the
// background, with the same code as `lazarus inject --bundle`. They are
// kept in Caddy's configured storage under lazarus/NAME/:
//
//	bundle/current, bundle/generations/ID/…   the bundle layout (injector/bundledir.go)
//	state/INDEX, state/state.json, state/segments/…   what the injector remembers between builds
//	built                                      when the last build finished (RFC 3339)
//	published/ID                               when generation ID became current (RFC 3339)
//
// Builds take the storage lock lazarus/NAME/build, so of several instances
// sharing storage one builds at a time and the others pick the result up.
// A build keeps every generation an instance may still serve or carry
// along (see builder.retained) and deletes the others.
type Build struct {
	// Sources are the files and directories preserved. At least one
	// source or dump is required.
	Sources []Include `json:"sources,omitempty"`
	// Excludes are gitignore-style patterns, relative to each source root.
	Excludes []string `json:"excludes,omitempty"`
	// Dumps are commands (run with sh -c) whose standard output is
	// preserved; a failing dump fails the build and the last good
	// generation keeps being served.
	Dumps []Dump `json:"dumps,omitempty"`
	// DumpTimeout bounds each dump. Defaults to 10 minutes.
	DumpTimeout caddy.Duration `json:"dump_timeout,omitempty"`
	// Key is the path of server.key (`lazarus keygen`): it encrypts to the
	// owner and signs, and cannot decrypt. Exactly one of Key and
	// PassphraseFile is required.
	Key string `json:"key,omitempty"`
	// PassphraseFile is the path of a file holding the passphrase.
	PassphraseFile string `json:"passphrase_file,omitempty"`
	// SiteURL is the site's public URL, recorded in manifests. Required;
	// in a Caddyfile it defaults to the URL of the site block's address
	// when that names one host.
	SiteURL string `json:"site_url,omitempty"`
	// Every is how often sources are checked for changes; a generation is
	// made only when something changed. Defaults to 1 hour.
	Every caddy.Duration `json:"every,omitempty"`
	// Carriers is the stand-in page count the erasure code is planned
	// for until the site's carrier pages are learned (pages served,
	// linked from the root, not excluded from archives: see carriers.go);
	// from then on the code is planned for the pages learned, never more.
	// Defaults to 16.
	Carriers int `json:"carriers,omitempty"`
	// MaxBlockBytes is the shard size per block. Defaults to 48 KiB.
	MaxBlockBytes int `json:"max_block_bytes,omitempty"`
	// Target is the recoverability each generation is planned for
	// (injector.Options.Target): the fewest bytes with which archives
	// keeping each page independently with probability 1/2 would keep
	// enough blocks with at least this probability, a ceiling (archives
	// crawl in sweeps), not a forecast. Defaults to 0.999; with capture
	// requests (Audit.CaptureRequests), the plan counts on them instead
	// and the target defaults to 0.99 within a day (see planRequests).
	Target float64 `json:"target,omitempty"`
	// Redundancy, when set, fixes the parity blocks per data block
	// instead of planning for Target (the two do not combine). With
	// Handler.Fill, the least parity before spare room raises it.
	Redundancy float64 `json:"redundancy,omitempty"`
}

// Include is one file or directory to preserve (a Caddyfile `source`) and
// its segment (by default its base name), as injector.Include.
type Include struct {
	Path    string `json:"path"`
	Segment string `json:"segment,omitempty"`
}

// Dump is a command whose output is preserved as the file Name in the
// segment Name.
type Dump struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	// Volatile are regular expressions for lines of the output left out
	// when it is compared with the last one (injector.Dump.Volatile): an
	// output that changed only in such lines makes no new generation.
	Volatile []string `json:"volatile,omitempty"`
}

// validate checks what the Caddyfile names differently from the
// command line; newBuilder has the injector check the rest.
func (b *Build) validate() error {
	var errs []error
	if len(b.Sources) == 0 && len(b.Dumps) == 0 {
		errs = append(errs, errors.New("lazarus: nothing to build from: give source or dump"))
	}
	if (b.Key == "") == (b.PassphraseFile == "") {
		errs = append(errs, errors.New("lazarus: give exactly one of key (server.key) and passphrase_file"))
	}
	if b.SiteURL == "" {
		errs = append(errs, errors.New("lazarus: site_url is required when building: the site's public URL, such as https://example.org/"))
	} else if !absHTTPURL(b.SiteURL) {
		errs = append(errs, fmt.Errorf("lazarus: site_url %q must be an absolute http(s) URL such as https://example.org/", b.SiteURL))
	}
	if b.Every < 0 || b.Carriers < 0 || b.MaxBlockBytes < 0 || b.Redundancy < 0 || b.DumpTimeout < 0 {
		errs = append(errs, errors.New("lazarus: every, carriers, max_block_bytes, redundancy and dump_timeout must not be negative"))
	}
	return errors.Join(errs...)
}

// builder runs the background builds of one handler.
type builder struct {
	h      *Handler
	every  time.Duration
	min    int // Carriers
	opts   injector.Options
	st     certmagic.Storage
	prefix string       // lazarus/NAME/
	bundle *bundleStore // prefix + "bundle/"
	work   string       // local cache of the injector state
	// requestsNote is what the last build planned for of the capture
	// requests (planRequests); only the build loop touches it.
	requestsNote string

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// newBuilder checks the build configuration and reads the key; it is
// fast, so it runs in Provision.
func newBuilder(h *Handler) (*builder, error) {
	c := h.Build
	if err := c.validate(); err != nil {
		return nil, err
	}
	o := injector.DefaultOptions()
	for _, s := range c.Sources {
		if _, err := os.Lstat(s.Path); err != nil {
			return nil, fmt.Errorf("lazarus: source: %w", err)
		}
		o.Includes = append(o.Includes, injector.Include{Path: s.Path, Segment: s.Segment})
	}
	for _, d := range c.Dumps {
		o.Dumps = append(o.Dumps, injector.Dump{Name: d.Name, Command: d.Command, Volatile: d.Volatile})
	}
	o.Excludes, o.SiteURL, o.PageBudget = c.Excludes, c.SiteURL, int(h.PageBudget)
	if c.DumpTimeout > 0 {
		o.DumpTimeout = time.Duration(c.DumpTimeout)
	}
	if c.MaxBlockBytes > 0 {
		o.MaxBlockBytes = c.MaxBlockBytes
	}
	if err := c.setRedundancy(&o, h.Fill); err != nil {
		return nil, err
	}
	identity, err := loadSecret(h, c, &o)
	if err != nil {
		return nil, err
	}
	if h.Name == "" {
		h.Name = buildName(c, identity)
	}
	b := &builder{h: h, every: time.Duration(c.Every), min: c.Carriers, opts: o, st: h.storage, prefix: h.storagePrefix()}
	if b.every == 0 {
		b.every = DefaultEvery
	}
	if b.min == 0 {
		b.min = DefaultCarriers
	}
	t, err := newTrust(o.ServerKey, o.Passphrase, c.SiteURL)
	if err != nil {
		return nil, fmt.Errorf("lazarus: %w", err)
	}
	b.bundle = &bundleStore{st: b.st, prefix: b.prefix + "bundle/", trust: t}
	b.work = filepath.Join(caddy.AppDataDir(), "lazarus", h.Name)
	check := o // the injector's own checks (segment names, sizes), with stand-in places
	check.StateDir, check.BundleDir, check.Carriers = b.work, b.work, b.min
	if err := check.Validate(); err != nil {
		return nil, fmt.Errorf("lazarus: %w", inOptionWords(err))
	}
	return b, nil
}

// setRedundancy sets how generations choose parity: by Target (the
// default), a fixed Redundancy, and filling pages after either (fill).
func (c *Build) setRedundancy(o *injector.Options, fill bool) error {
	if c.Target != 0 && c.Redundancy != 0 {
		return errors.New("lazarus: target plans by recoverability, redundancy <ratio> fixes the parity: give one of them")
	}
	if !(c.Target >= 0 && c.Target < 1) {
		return fmt.Errorf("lazarus: target %g: want a probability in (0, 1) such as 0.999", c.Target)
	}
	if c.Target > 0 {
		o.Target = c.Target
	}
	if fill {
		_ = o.SetRedundancy(injector.RedundancyMax)
	}
	if c.Redundancy > 0 {
		o.Target, o.Redundancy = 0, c.Redundancy
	}
	return nil
}

// loadSecret reads the server key or the passphrase into o the way
// `lazarus inject` does (internal/keys), warning about loose permissions.
// It returns the key's public identity, for the default name: the
// server.key's age recipient and signing key id (both in every archived
// block anyway), or in passphrase mode the passphrase file's absolute
// path (the passphrase is secret, and the salt that makes its key id
// public is stored under the name).
func loadSecret(h *Handler, c *Build, o *injector.Options) (string, error) {
	var warn keys.Warning
	var identity string
	if c.Key != "" {
		srv, w, err := keys.LoadServer(c.Key)
		if err != nil {
			return "", fmt.Errorf("lazarus: key: %w", err)
		}
		o.ServerKey, warn = srv.Marshal(), w
		identity = fmt.Sprintf("key\x00%s\x00%s", srv.Recipient(), keys.FormatKeyID(srv.KeyID()))
	} else {
		pass, w, err := keys.ReadPassphraseFile(c.PassphraseFile)
		if err != nil {
			return "", fmt.Errorf("lazarus: passphrase_file: %w", err)
		}
		abs, _ := filepath.Abs(c.PassphraseFile)
		o.Passphrase, warn, identity = pass, w, "passphrase\x00"+abs
	}
	if warn != "" {
		h.logger.Warn(string(warn))
	}
	return identity, nil
}

// start runs the build loop until stop.
func (b *builder) start(ctx context.Context) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, b.cancel = context.WithCancel(ctx)
	b.done = make(chan struct{})
	go b.loop(ctx)
}

// stop ends the build loop and waits for it (a build in progress is
// cancelled: its dumps are killed, nothing half-made is published).
func (b *builder) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		b.cancel()
		<-b.done
		b.cancel = nil
	}
}

// loop builds at once when the storage holds no generation or the last
// build is older than every, then every interval; failures are retried
// after firstRetry, doubling up to every.
func (b *builder) loop(ctx context.Context) {
	defer close(b.done)
	wait := b.firstWait(ctx)
	fails := 0
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		result, err := b.build(ctx)
		if ctx.Err() != nil {
			return
		}
		b.h.metrics.builds.WithLabelValues(b.h.Name, result).Inc()
		if err != nil {
			fails++
			wait = min(firstRetry<<min(fails-1, 16), b.every)
			msg := "building lazarus generation; the last good one keeps being served"
			if b.h.gen.Load() == nil {
				msg = "building lazarus generation; pages are served without blocks until a build succeeds"
			}
			b.h.logger.Error(msg, zap.Error(err), zap.Duration("retry_in", wait))
			continue
		}
		fails, wait = 0, b.every
	}
}

// firstWait is how long after start the first build runs.
func (b *builder) firstWait(ctx context.Context) time.Duration {
	if _, err := b.bundle.current(ctx); err != nil {
		return 0
	}
	last, err := b.lastBuilt(ctx)
	if err != nil {
		return 0
	}
	return max(0, b.every-b.h.now().Sub(last))
}

func (b *builder) lastBuilt(ctx context.Context) (time.Time, error) {
	v, err := loadLimited(ctx, b.st, b.prefix+"built", maxStampBytes)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, strings.TrimSpace(string(v)))
}

// build runs one build under the storage lock and reports "new",
// "unchanged", "skipped" (another instance built moments ago) or "failed".
func (b *builder) build(ctx context.Context) (string, error) {
	if err := b.st.Lock(ctx, b.prefix+"build"); err != nil {
		return "failed", fmt.Errorf("build lock: %w", err)
	}
	defer b.st.Unlock(context.WithoutCancel(ctx), b.prefix+"build")
	if last, err := b.lastBuilt(ctx); err == nil && b.h.now().Sub(last) < b.every/2 {
		if _, err := b.bundle.current(ctx); err == nil {
			return "skipped", nil
		}
	}
	res, err := b.run(ctx)
	if err != nil {
		return "failed", err
	}
	if err := b.st.Store(ctx, b.prefix+"built", []byte(b.h.now().UTC().Format(time.RFC3339Nano)+"\n")); err != nil {
		return "failed", err
	}
	fields := []zap.Field{zap.String("generation", res.Generation), zap.Bool("new", res.New),
		// The code is planned for this many pages (Build.Carriers, or more
		// if the blocks need them); the bundle names none: the blocks are
		// placed on pages as they are served.
		zap.Int("segments", len(res.Segments)), zap.Int("code_planned_for_pages", res.Carriers)}
	if o := res.Outlook; o != nil {
		// What is certain first (pages it may lose, whichever), then the
		// capture model's prior forecast (no capture history read; page
		// depths unknown to a bundle, so taken as deep): lower bounds.
		fields = append(fields, zap.Int("survives_loss_of_pages", o.Survives))
		for _, c := range o.Within {
			fields = append(fields, zap.Float64(fmt.Sprintf("prior_forecast_within_%dd", c.Days), c.Probability))
		}
	}
	if b.requestsNote != "" {
		fields = append(fields, zap.String("capture_requests", b.requestsNote))
	}
	b.h.logger.Info("built lazarus generation", fields...)
	if res.New {
		return "new", nil
	}
	return "unchanged", nil
}

// run pulls the injector state, runs the injector into a scratch bundle
// and publishes: the generation's files, then current, swapped from the
// value this build started from in one step (see publish), then the
// state; then it prunes. A crash at any point leaves storage serving a
// whole generation; one before the state is stored leaves the state of
// the generation before, and the next build makes a generation anew. A
// build whose lock expired while it stalled (another instance built
// meanwhile) publishes nothing and stores no state.
func (b *builder) run(ctx context.Context) (*injector.Report, error) {
	stateDir := filepath.Join(b.work, "state")
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	old, err := pull(ctx, b.st, b.prefix+"state/", stateDir, skipStateFiles)
	if err != nil {
		return nil, fmt.Errorf("reading the build state from storage: %w", err)
	}
	scratch, err := os.MkdirTemp(b.work, "bundle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	curRaw, cur, err := b.currentValue(ctx)
	if err != nil {
		return nil, err
	}
	learned := b.learn(ctx)
	o := b.opts
	o.StateDir, o.BundleDir, o.Carriers, o.Now = stateDir, scratch, b.plannedCarriers(learned), b.h.now
	b.requestsNote = b.planRequests(ctx, &o)
	res, err := injector.Run(ctx, o)
	if err != nil {
		return nil, inOptionWords(err)
	}
	b.checkCarriers(res, learned)
	if cur != res.Generation {
		gen := "generations/" + res.Generation + "/"
		if _, err := storeTree(ctx, b.st, b.bundle.prefix+gen, filepath.Join(scratch, filepath.FromSlash(gen)), nil, nil); err != nil {
			return nil, fmt.Errorf("storing generation %s: %w", res.Generation, err)
		}
		b.carryOver(ctx, res.Generation)
		if err := b.publish(ctx, curRaw, res.Generation); err != nil {
			return nil, err
		}
	} else if err := b.stillCurrent(ctx, cur, res.Generation); err != nil {
		return nil, err
	}
	if err := push(ctx, b.st, b.prefix+"state/", stateDir, old, skipStateFiles); err != nil {
		return nil, fmt.Errorf("storing the build state: %w", err)
	}
	b.prune(ctx, res.Generation, cur)
	return res, nil
}

// carryOver starts the placement of the generation id, stored and not
// yet published, from its parent's (the generation served, as a rule)
// and copies the parent's records, so that instances switching to it
// find it done (see Handler.use); a failure is left to them.
func (b *builder) carryOver(ctx context.Context, id string) {
	g, err := b.bundle.loadGeneration(ctx, id)
	if err != nil {
		return
	}
	b.h.attachPlacer(g)
	parent := b.h.gen.Load()
	b.h.startCarry(g, parent)
	b.h.copyPlacement(ctx, g, parent)
}

// currentValue reads the bundle's current key as stored (nil if there is
// none) and the generation id it names ("" if none, or if it names no
// generation id).
func (b *builder) currentValue(ctx context.Context) ([]byte, string, error) {
	raw, err := b.bundle.load(ctx, "current", maxCurrentBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("reading the current generation: %w", err)
	}
	id := strings.TrimSpace(string(raw))
	if _, err := manifest.ParseID(id); err != nil {
		id = ""
	}
	return raw, id, nil
}

// errPublishedMeanwhile is the error of a build that finds, when it would
// publish, that another instance published since it started.
func errPublishedMeanwhile(now, built string) error {
	if now == "" {
		now = "another generation"
	}
	return fmt.Errorf("generation %s was published by another instance while this build ran; %s is not published (the next build starts from %s)", now, built, now)
}

// stillCurrent checks, for a build that made no new generation, that the
// current generation is still cur, the one it started from, before it
// stores its state and prunes: another instance may have published
// meanwhile (the storage lock can expire under a builder that stalled).
func (b *builder) stillCurrent(ctx context.Context, cur, built string) error {
	_, now, err := b.currentValue(ctx)
	if err != nil {
		return err
	}
	if now != cur {
		return errPublishedMeanwhile(now, built)
	}
	return nil
}
