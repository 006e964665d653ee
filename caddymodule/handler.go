package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/injector"
	"go.uber.org/zap"
)

// Defaults of the handler's options.
const (
	// DefaultPageBudget is the injector's: a page the module fills and one
	// `lazarus inject` plans carry the same.
	DefaultPageBudget     = injector.DefaultPageBudget
	DefaultMaxBuffer      = 4 << 20
	DefaultReloadInterval = 10 * time.Second
	// DefaultOverlap is how long the previous generation rides along.
	DefaultOverlap = 14 * 24 * time.Hour
	// DefaultCrawlSession is the quiet time that ends a crawler's sweep.
	DefaultCrawlSession = 10 * time.Minute
	// DefaultMaxCrawlHold is the longest crawlers hold a switch.
	DefaultMaxCrawlHold = time.Hour
	// DefaultCopies is how many pages each block is placed on; with
	// Handler.Fill, DefaultFillCopies.
	DefaultCopies     = 1
	DefaultFillCopies = 3
)

func init() {
	caddy.RegisterModule(new(Handler))
}

// DefaultCrawlers are the archive crawlers' User-Agent substrings.
var DefaultCrawlers = []string{"archive.org_bot", "ia_archiver", "CCBot", "heritrix", "Internet Archive"}

// Handler is the http.handlers.lazarus middleware: it inserts the blocks
// of the current generation into the HTML pages served by the handlers
// after it. Generations come from a bundle directory written by
// `lazarus inject --bundle` (Bundle) or are built by the handler itself in
// the background (Build) and kept in Caddy's storage.
type Handler struct {
	// Bundle is the directory written by `lazarus inject --bundle`.
	// Exactly one of Bundle and Build is required.
	Bundle string `json:"bundle,omitempty"`
	// Build makes the handler build generations itself from files and
	// command outputs, kept in Caddy's configured storage.
	Build *Build `json:"build,omitempty"`
	// Name names this handler's state in Caddy's storage (keys under
	// lazarus/NAME/): generations it builds and where pages' blocks are.
	// Instances that share storage and a name serve identical pages, so
	// two sites sharing storage must never share a name. Defaults to a
	// hash of the absolute bundle directory or, when building, of the
	// sources, dumps, site_url and the key's public identity (the
	// server.key's recipient and key id; in passphrase mode, the absolute
	// path of passphrase_file, as the passphrase is secret and its salt is
	// kept under the name): the same configuration gives the same name on
	// every instance and restart. Give name when the state must survive a
	// change of those, or when sites share storage and a passphrase file
	// path.
	Name string `json:"name,omitempty"`
	// PageBudget is the most bytes of comments added to one page (at least
	// one block is always added), in bytes. Defaults to 256 KiB. Pages
	// named in the bundle's plan carry what the plan says.
	PageBudget int64 `json:"page_budget,omitempty"`
	// Copies is how many verified pages (linked from the site) each block
	// is placed on; then new pages get no blocks (with Fill, replicas from
	// a fixed table instead of placement records). Defaults to 1 (3 with
	// Fill): the generation's code is planned for a recoverability target
	// with one copy of each block.
	Copies int `json:"copies,omitempty"`
	// Fill fills pages up to PageBudget (the Caddyfile's redundancy max):
	// a page the plan does not name gets the least-covered blocks, several
	// of one stripe if they fit, until every block has Copies carriers,
	// and pages after that get replicas from a fixed table; a generation
	// built here raises parity with spare room. Without it (the default)
	// such a page gets at most one block of each stripe, only blocks
	// short of Copies carriers, and nothing once every block has them;
	// generations built here get the fewest bytes that reach the target.
	Fill bool `json:"fill,omitempty"`
	// Notice is an optional visible line, such as "Backup updated {date}",
	// kept in every page that carries blocks, so archives that ignore
	// comment-only changes see the page change when its blocks do; {date}
	// is the day (YYYY-MM-DD, UTC) the page's blocks last changed. The
	// element carrying the data-lazarus-notice attribute is updated, or a
	// <p> is added before </body>.
	Notice string `json:"notice,omitempty"`
	// MaxPageBytes keeps pages with blocks below this size, so archives
	// that cut large records (Common Crawl stops at 1 MiB) keep every
	// comment: blocks that would cross it are left off that page. Defaults
	// to 960 KiB.
	MaxPageBytes int64 `json:"max_page_bytes,omitempty"`
	// MaxBuffer is the largest upstream body buffered, in bytes; larger
	// responses pass through untouched, streamed: at once when their
	// Content-Length says so, else once the body passes it (what was held
	// goes first, then the rest), logged. No more than MaxPageBytes is
	// ever held, as a larger page cannot carry blocks. Defaults to 4 MiB.
	MaxBuffer int64 `json:"max_buffer,omitempty"`
	// QueryCarriers lets URLs with a query string carry blocks (chosen by
	// path and query; such pages never count toward coverage, as links are
	// followed without their queries). Defaults to false: such URLs pass
	// through untouched.
	QueryCarriers bool `json:"query_carriers,omitempty"`
	// ReloadInterval is how often the current generation is re-checked
	// (a duration: "10s", or nanoseconds). Defaults to 10 seconds.
	ReloadInterval caddy.Duration `json:"reload_interval,omitempty"`
	// Overlap is how long after a generation was made pages keep carrying
	// the blocks of the generation it replaced (its manifest's previous
	// generation, while the bundle still holds it) beside the new ones,
	// budget allowing: make-before-break, so the archives always hold one
	// complete generation. Measured from the generation's time, so every
	// instance agrees. Defaults to 14 days; a negative value disables it
	// (in a Caddyfile: overlap off).
	Overlap caddy.Duration `json:"overlap,omitempty"`
	// MaxOverlap, with Audit, is how long after a generation was made the
	// previous one rides along at most: with Audit the ride ends as soon as
	// an audit shows the new generation safe in the archives (its restore
	// point, with P_rec now ≥ 0.99 in the capture model's view), else at
	// MaxOverlap, never sooner than Overlap. Without Audit, Overlap alone
	// decides. Defaults to 90 days.
	MaxOverlap caddy.Duration `json:"max_overlap,omitempty"`
	// Crawlers are User-Agent substrings (case-insensitive) of archive
	// crawlers. While one has been seen within CrawlSession, a new
	// generation is not switched to, for at most MaxCrawlHold: changing
	// blocks in the middle of a sweep can leave neither version complete.
	// Anyone can send these User-Agents, so they only ever delay a switch.
	// Defaults to archive.org_bot, ia_archiver, CCBot, heritrix, Internet
	// Archive.
	Crawlers []string `json:"crawlers,omitempty"`
	// CrawlSession is the quiet time after an archive crawler's last
	// request that ends its sweep. Defaults to 10 minutes.
	CrawlSession caddy.Duration `json:"crawl_session,omitempty"`
	// MaxCrawlHold is the longest crawlers hold a switch to a new
	// generation, from the first request that postponed it; then the
	// switch happens whatever crawlers are seen. A self-building handler
	// keeps generations in storage until instances must have switched
	// (MaxCrawlHold plus two ReloadIntervals after the next one was
	// published). Defaults to 1 hour.
	MaxCrawlHold caddy.Duration `json:"max_crawl_hold,omitempty"`
	// Audit, if set, audits the archives on a schedule (what `lazarus
	// status` does) and exports the result as metrics. Defaults to off.
	Audit *Audit `json:"audit,omitempty"`

	ctx         context.Context
	storage     certmagic.Storage // placement state, and built generations
	src         *bundleStore      // where generations are read
	builder     *builder
	logger      *zap.Logger
	metrics     *metrics
	cache       *blockCache // armored blocks
	pages       *blockCache // finished pages by ETag
	inspected   *fifoCache[[sha256.Size]byte, inspection]
	sums        *bodySums      // the digest of each path's last page (bodysum.go)
	linked      *linkSet       // paths verified pages link to
	learned     *carrierLog    // carrier pages seen since the last build (carriers.go)
	changes     *changeCache   // paths whose pages the module changes, or not
	history     *serveHistory  // page versions to record (servehistory.go)
	auditor     *auditor       // the scheduled audit, if configured (audit.go)
	background  sync.WaitGroup // placement copies and pruning after a switch (switch.go)
	gen         atomic.Pointer[generation]
	prev        atomic.Pointer[riding]   // the generation the current one replaced, if still stored
	safe        atomic.Pointer[safeMark] // when an audit first showed the current generation safe (auditevidence.go)
	crawler     atomic.Int64             // unix nanoseconds of the last archive crawler request
	lastCheck   atomic.Int64             // unix nanoseconds of the last look at current; 0 = never
	reloading   atomic.Bool
	storageDown atomic.Bool // reload could not read storage: said once per outage
	holdSince   time.Time   // when a pending switch was first postponed; zero if none (only reload touches it)
	now         func() time.Time
	// streamIdle is how long an upstream that flushed may stay silent
	// before a held page is sent on unchanged, streamed (recorder.go).
	streamIdle time.Duration
}

// CaddyModule returns the Caddy module information.
func (*Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.lazarus",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision fills defaults, sets up logging and metrics and, with Build,
// starts the background builder. It reads no generation and builds
// nothing itself: the first request loads the current generation.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.ctx, h.logger, h.storage = ctx, ctx.Logger(), ctx.Storage()
	h.metrics = newMetrics(ctx.GetMetricsRegistry(), processCounters())
	if err := h.setup(); err != nil {
		return err
	}
	if h.builder != nil {
		h.builder.start(ctx)
	}
	if h.Audit != nil {
		h.auditor = newAuditor(h)
		h.auditor.start(ctx)
	}
	return nil
}

// setup fills defaults and makes the parts; Provision and tests use it.
func (h *Handler) setup() error {
	h.setDefaults()
	h.src = &bundleStore{st: &certmagic.FileStorage{Path: h.Bundle}}
	if h.Build != nil && h.Bundle == "" { // both: Validate says so
		b, err := newBuilder(h) // names the handler once it knows the key
		if err != nil {
			return err
		}
		h.builder, h.src = b, b.bundle
	}
	if h.Name == "" {
		h.Name = bundleName(h.Bundle)
	}
	h.history = newServeHistory(h)
	return nil
}

func (h *Handler) setDefaults() {
	if h.PageBudget == 0 {
		h.PageBudget = DefaultPageBudget
	}
	if h.Copies == 0 && h.Fill {
		h.Copies = DefaultFillCopies
	}
	if h.Copies == 0 {
		h.Copies = DefaultCopies
	}
	if h.MaxBuffer == 0 {
		h.MaxBuffer = DefaultMaxBuffer
	}
	if h.MaxPageBytes == 0 {
		h.MaxPageBytes = injector.DefaultMaxPageBytes
	}
	if h.ReloadInterval == 0 {
		h.ReloadInterval = caddy.Duration(DefaultReloadInterval)
	}
	if h.Overlap == 0 {
		h.Overlap = caddy.Duration(DefaultOverlap)
	}
	if h.Crawlers == nil {
		h.Crawlers = DefaultCrawlers
	}
	if h.CrawlSession == 0 {
		h.CrawlSession = caddy.Duration(DefaultCrawlSession)
	}
	if h.MaxCrawlHold == 0 {
		h.MaxCrawlHold = caddy.Duration(DefaultMaxCrawlHold)
	}
	if h.ctx == nil {
		h.ctx = context.Background()
	}
	if h.logger == nil {
		h.logger = zap.NewNop()
	}
	if h.storage == nil {
		h.storage = &certmagic.FileStorage{Path: caddy.AppDataDir()}
	}
	if h.now == nil {
		h.now = time.Now
	}
	h.cache = newBlockCache(defaultCacheBytes)
	h.pages = newBlockCache(defaultPageCacheBytes)
	h.inspected = newInspectCache(defaultInspectBytes)
	h.sums = newBodySums(defaultBodySumBytes)
	h.linked = newLinkSet(defaultLinkEntries)
	h.learned = newCarrierLog()
	h.changes = newChangeCache(defaultChangeEntries)
	if h.streamIdle == 0 {
		h.streamIdle = defaultStreamIdle
	}
	if h.metrics == nil {
		h.metrics = newMetrics(nil, newCounters())
	}
}

// bundleName is the default Name of a handler serving the bundle dir.
func bundleName(dir string) string {
	abs, _ := filepath.Abs(dir)
	return nameHash("bundle\x00" + abs)
}

// buildName is the default Name of a self-building handler: the sources,
// dumps, site and key identity (public: see loadSecret).
func buildName(c *Build, identity string) string {
	var parts strings.Builder
	for _, s := range c.Sources {
		parts.WriteString("source\x00" + s.Path + "\x00" + s.Segment + "\x00")
	}
	for _, d := range c.Dumps {
		parts.WriteString("dump\x00" + d.Name + "\x00")
	}
	parts.WriteString("site\x00" + c.SiteURL + "\x00" + identity)
	return nameHash(parts.String())
}

// nameHash is the first 16 hex digits of SHA-256(s).
func nameHash(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])[:16]
}

// storagePrefix is where the handler's state lives in Caddy's storage.
func (h *Handler) storagePrefix() string { return "lazarus/" + h.Name + "/" }

// holdLimit is the most bytes of a response held: MaxBuffer, but no more
// than MaxPageBytes, as a larger page cannot carry blocks.
func (h *Handler) holdLimit() int64 { return min(h.MaxBuffer, h.MaxPageBytes) }

// Validate checks the configuration.
func (h *Handler) Validate() error {
	var errs []error
	if (h.Bundle == "") == (h.Build == nil) {
		errs = append(errs, errors.New("lazarus: give either a bundle directory or sources to build from"))
	}
	if h.Build != nil {
		errs = append(errs, h.Build.validate())
	}
	if h.Audit != nil {
		errs = append(errs, h.Audit.validate(h))
	}
	if !validName(h.Name) {
		errs = append(errs, fmt.Errorf("lazarus: name %q: use letters, digits, '-', '_' and '.'", h.Name))
	}
	if h.PageBudget < 0 {
		errs = append(errs, fmt.Errorf("lazarus: page_budget %d is negative", h.PageBudget))
	}
	if h.Copies < 0 {
		errs = append(errs, fmt.Errorf("lazarus: copies %d is negative", h.Copies))
	}
	if h.MaxPageBytes < 0 {
		errs = append(errs, fmt.Errorf("lazarus: max_page_bytes %d is negative", h.MaxPageBytes))
	}
	if h.MaxBuffer < 0 {
		errs = append(errs, fmt.Errorf("lazarus: max_buffer %d is negative", h.MaxBuffer))
	}
	if h.ReloadInterval < 0 {
		errs = append(errs, fmt.Errorf("lazarus: reload_interval %s is negative", time.Duration(h.ReloadInterval)))
	}
	if h.MaxCrawlHold < 0 {
		errs = append(errs, fmt.Errorf("lazarus: max_crawl_hold %s is negative", time.Duration(h.MaxCrawlHold)))
	}
	return errors.Join(errs...)
}

func validName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Cleanup stops the builder and drops the loaded generation and caches.
func (h *Handler) Cleanup() error {
	if h.builder != nil {
		h.builder.stop()
	}
	if h.auditor != nil {
		h.auditor.stop()
	}
	h.history.close()
	h.background.Wait()
	h.gen.Store(nil)
	h.prev.Store(nil)
	h.cache = newBlockCache(defaultCacheBytes)
	h.pages = newBlockCache(defaultPageCacheBytes)
	h.sums = newBodySums(defaultBodySumBytes)
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddyfile.Unmarshaler       = (*Handler)(nil)
)
