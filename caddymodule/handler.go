package caddymodule

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// Defaults of the handler's options.
const (
	DefaultPageBudget     = 256 << 10
	DefaultMaxBuffer      = 4 << 20
	DefaultReloadInterval = 10 * time.Second
	// DefaultOverlap is how long the previous generation rides along.
	DefaultOverlap = 14 * 24 * time.Hour
	// DefaultCrawlSession is the quiet time that ends a crawler's sweep.
	DefaultCrawlSession = 10 * time.Minute
)

func init() {
	caddy.RegisterModule(new(Handler))
}

// DefaultCrawlers are the archive crawlers' User-Agent substrings.
var DefaultCrawlers = []string{"archive.org_bot", "ia_archiver", "CCBot", "heritrix", "Internet Archive"}

// Handler is the http.handlers.lazarus middleware: it inserts the blocks
// of the bundle's current generation into the HTML pages served by the
// handlers after it.
type Handler struct {
	// Bundle is the directory written by `lazarus inject --bundle`.
	// Required.
	Bundle string `json:"bundle,omitempty"`
	// PageBudget is the most bytes of comments added to one page (at least
	// one block is always added), in bytes. Defaults to 256 KiB. Pages
	// named in the bundle's plan carry what the plan says.
	PageBudget int64 `json:"page_budget,omitempty"`
	// MaxBuffer is the largest upstream body buffered, in bytes; larger
	// responses pass through untouched and are logged. Defaults to 4 MiB.
	MaxBuffer int64 `json:"max_buffer,omitempty"`
	// QueryCarriers lets URLs with a query string carry blocks (chosen by
	// path and query). Defaults to false: such URLs pass through untouched.
	QueryCarriers bool `json:"query_carriers,omitempty"`
	// ReloadInterval is how often the bundle's current file is re-checked
	// for a new generation (a duration: "10s", or nanoseconds). Defaults
	// to 10 seconds.
	ReloadInterval caddy.Duration `json:"reload_interval,omitempty"`
	// Overlap is how long, after a switch, pages keep carrying the
	// previous generation's blocks beside the new ones (budget allowing):
	// make-before-break, so the archives always hold one complete
	// generation. Defaults to 14 days; a negative value disables it.
	Overlap caddy.Duration `json:"overlap,omitempty"`
	// Crawlers are User-Agent substrings (case-insensitive) of archive
	// crawlers. While one has been seen within CrawlSession, a new
	// generation is not switched to: changing blocks in the middle of a
	// sweep can leave neither version complete. Defaults to
	// archive.org_bot, ia_archiver, CCBot, heritrix, Internet Archive.
	Crawlers []string `json:"crawlers,omitempty"`
	// CrawlSession is the quiet time after an archive crawler's last
	// request that ends its sweep. Defaults to 10 minutes.
	CrawlSession caddy.Duration `json:"crawl_session,omitempty"`

	logger    *zap.Logger
	metrics   *metrics
	cache     *blockCache // armored blocks
	pages     *blockCache // finished pages by ETag
	gen       atomic.Pointer[generation]
	prev      atomic.Pointer[generation] // the generation before, during Overlap
	switched  atomic.Int64               // unix nanoseconds of the last switch
	crawler   atomic.Int64               // unix nanoseconds of the last archive crawler request
	lastCheck atomic.Int64               // unix nanoseconds of the last look at current; 0 = never
	reloading atomic.Bool
	now       func() time.Time
}

// CaddyModule returns the Caddy module information.
func (*Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.lazarus",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision fills defaults and sets up logging. It does not read the
// bundle: the first request loads the current generation.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.setDefaults()
	h.metrics = newMetrics(ctx.GetMetricsRegistry())
	return nil
}

func (h *Handler) setDefaults() {
	if h.PageBudget == 0 {
		h.PageBudget = DefaultPageBudget
	}
	if h.MaxBuffer == 0 {
		h.MaxBuffer = DefaultMaxBuffer
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
	if h.logger == nil {
		h.logger = zap.NewNop()
	}
	if h.now == nil {
		h.now = time.Now
	}
	h.cache = newBlockCache(defaultCacheBytes)
	h.pages = newBlockCache(defaultPageCacheBytes)
	if h.metrics == nil {
		h.metrics = newMetrics(nil)
	}
}

// Validate checks the configuration.
func (h *Handler) Validate() error {
	var errs []error
	if h.Bundle == "" {
		errs = append(errs, errors.New("lazarus: bundle directory is required"))
	}
	if h.PageBudget < 0 {
		errs = append(errs, fmt.Errorf("lazarus: page_budget %d is negative", h.PageBudget))
	}
	if h.MaxBuffer < 0 {
		errs = append(errs, fmt.Errorf("lazarus: max_buffer %d is negative", h.MaxBuffer))
	}
	if h.ReloadInterval < 0 {
		errs = append(errs, fmt.Errorf("lazarus: reload_interval %s is negative", time.Duration(h.ReloadInterval)))
	}
	return errors.Join(errs...)
}

// Cleanup drops the loaded generation and cached blocks. The handler runs
// no goroutines: reloads happen inside requests.
func (h *Handler) Cleanup() error {
	h.gen.Store(nil)
	h.cache = newBlockCache(defaultCacheBytes)
	h.pages = newBlockCache(defaultPageCacheBytes)
	return nil
}

// current returns the generation to use for one request, first
// re-reading the bundle's current file when ReloadInterval has passed
// (one request at a time does so; the others use the generation they
// find). It is nil when no generation could be loaded.
func (h *Handler) current() *generation {
	now := h.now().UnixNano()
	last := h.lastCheck.Load()
	if (last == 0 || now-last >= int64(h.ReloadInterval)) && h.reloading.CompareAndSwap(false, true) {
		defer h.reloading.Store(false)
		h.reload()
		h.lastCheck.Store(now)
	}
	return h.gen.Load()
}

// reload loads the generation named by current if it is new.
func (h *Handler) reload() {
	id, err := readCurrent(h.Bundle)
	if err != nil {
		h.logger.Error("reading lazarus bundle", zap.String("bundle", h.Bundle), zap.Error(err))
		return
	}
	cur := h.gen.Load()
	if cur != nil && cur.id == id {
		return
	}
	if cur != nil && h.crawling() {
		h.logger.Info("postponing lazarus generation switch while an archive crawler sweeps the site", zap.String("generation", id))
		return
	}
	g, err := loadGeneration(h.Bundle, id)
	if err != nil {
		h.logger.Error("loading lazarus generation", zap.String("bundle", h.Bundle), zap.Error(err))
		return
	}
	h.prev.Store(cur)
	h.switched.Store(h.now().UnixNano())
	h.gen.Store(g)
	h.metrics.blocks.WithLabelValues(h.Bundle).Set(float64(len(g.blocks)))
	h.logger.Info("loaded lazarus generation", zap.String("generation", id),
		zap.Int("blocks", len(g.blocks)), zap.Int("planned_pages", len(g.pages)))
}

// crawling reports whether an archive crawler was seen within CrawlSession.
func (h *Handler) crawling() bool {
	last := h.crawler.Load()
	return last != 0 && h.now().UnixNano()-last < int64(h.CrawlSession)
}

// noteCrawler records a request from an archive crawler.
func (h *Handler) noteCrawler(r *http.Request) {
	ua := strings.ToLower(r.UserAgent())
	for _, c := range h.Crawlers {
		if c != "" && strings.Contains(ua, strings.ToLower(c)) {
			h.crawler.Store(h.now().UnixNano())
			return
		}
	}
}

// previous returns the generation whose blocks still ride along, if the
// overlap after the last switch is not over.
func (h *Handler) previous() *generation {
	p := h.prev.Load()
	if p == nil || h.Overlap < 0 || h.now().UnixNano()-h.switched.Load() >= int64(h.Overlap) {
		return nil
	}
	return p
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddyfile.Unmarshaler       = (*Handler)(nil)
)
