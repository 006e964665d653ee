package caddymodule

import (
	"errors"
	"fmt"
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
)

func init() {
	caddy.RegisterModule(new(Handler))
}

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

	logger    *zap.Logger
	cache     *blockCache
	gen       atomic.Pointer[generation]
	lastCheck atomic.Int64 // unix nanoseconds of the last look at current; 0 = never
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
	if h.logger == nil {
		h.logger = zap.NewNop()
	}
	if h.now == nil {
		h.now = time.Now
	}
	h.cache = newBlockCache(defaultCacheBytes)
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
	if g := h.gen.Load(); g != nil && g.id == id {
		return
	}
	g, err := loadGeneration(h.Bundle, id)
	if err != nil {
		h.logger.Error("loading lazarus generation", zap.String("bundle", h.Bundle), zap.Error(err))
		return
	}
	h.gen.Store(g)
	h.logger.Info("loaded lazarus generation", zap.String("generation", id),
		zap.Int("blocks", len(g.blocks)), zap.Int("planned_pages", len(g.pages)))
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddyfile.Unmarshaler       = (*Handler)(nil)
)
