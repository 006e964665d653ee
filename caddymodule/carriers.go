package caddymodule

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/verify"
	"go.uber.org/zap"
)

// Carrier pages are learned from the site, the way an archive's crawler
// finds them (and `lazarus verify` crawls): a page counts when it is
// verified (the root, or linked from a verified page: see linkSet),
// served as HTML and not excluded from archives (noindex, noarchive); a
// verified page excluded is counted apart, and so are the links with a
// query string verified pages hold (pages at such URLs carry no blocks
// by default, and archives seldom keep them). What the instances learn is
// merged in storage at every build (lazarus/NAME/carriers) and the code
// is planned for the pages learned, never for a stand-in count beyond
// them (see builder.plannedCarriers).

// maxLearned bounds each set of learned paths.
const maxLearned = maxRecords

// maxQueryLinks bounds the links with a query string one page adds.
const maxQueryLinks = 64

// carrierLog is what this instance learned of the site's carrier pages
// since a build last merged it (see take), as path hashes.
type carrierLog struct {
	mu                      sync.Mutex
	pages, excluded, querys map[[16]byte]bool
}

func newCarrierLog() *carrierLog {
	return &carrierLog{pages: map[[16]byte]bool{}, excluded: map[[16]byte]bool{}, querys: map[[16]byte]bool{}}
}

// saw records a verified page served: a carrier, or excluded for reason
// ("noindex", "noarchive"), with the query links it holds.
func (c *carrierLog) saw(key, reason string, queries [][16]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := keyHash(key)
	if reason == "" {
		addBounded(c.pages, k)
		delete(c.excluded, k)
	} else {
		addBounded(c.excluded, k)
		delete(c.pages, k)
	}
	for _, q := range queries {
		addBounded(c.querys, q)
	}
}

// take returns what was seen since the last take, and starts the log
// afresh: each sighting is merged once, so the latest one wins.
func (c *carrierLog) take() *carrierLog {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &carrierLog{pages: c.pages, excluded: c.excluded, querys: c.querys}
	c.pages, c.excluded, c.querys = map[[16]byte]bool{}, map[[16]byte]bool{}, map[[16]byte]bool{}
	return out
}

// putBack returns to the log what take took and could not be merged,
// behind the sightings since.
func (c *carrierLog) putBack(old *carrierLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range old.pages {
		if !c.excluded[k] {
			addBounded(c.pages, k)
		}
	}
	for k := range old.excluded {
		if !c.pages[k] {
			addBounded(c.excluded, k)
		}
	}
	for k := range old.querys {
		addBounded(c.querys, k)
	}
}

func addBounded(m map[[16]byte]bool, k [16]byte) {
	if len(m) < maxLearned {
		m[k] = true
	}
}

// learnedCarriers is the stored form of what the instances learned: hex
// path hashes. The carrier pages are those seen in the learning window
// that started at Since (Pages) and in the one before (Earlier, not seen
// since): a page no longer served (moved, deleted) stops counting after
// one to two windows.
type learnedCarriers struct {
	Pages    []string  `json:"pages"`
	Earlier  []string  `json:"earlier,omitempty"`
	Since    time.Time `json:"since,omitzero"`
	Excluded []string  `json:"excluded"`
	Queries  []string  `json:"queries"`
}

// learnWindow is how long a carrier page counts after it was last seen,
// at least (at most twice that).
const learnWindow = 30 * 24 * time.Hour

// roll starts a new learning window when the current one is over, at
// now: the pages seen in it become the earlier ones (none when two
// windows are over). A file without a window starts one now. It reports
// whether anything changed.
func (c *learnedCarriers) roll(now time.Time) bool {
	switch age := now.Sub(c.Since); {
	case c.Since.IsZero():
	case age >= 2*learnWindow:
		c.Earlier = nil
	case age >= learnWindow:
		c.Earlier = c.Pages
	default:
		return false
	}
	if !c.Since.IsZero() {
		c.Pages = nil
	}
	c.Since = now.UTC()
	return true
}

// carrierCount is what is known of the site's carrier pages.
type carrierCount struct {
	pages, excluded, queries int
}

// known reports whether any verified page was seen.
func (c carrierCount) known() bool { return c.pages+c.excluded > 0 }

// maxLearnedBytes bounds the stored learned carriers.
const maxLearnedBytes = 4 * maxLearned * 40

// learn merges what this instance saw since its last merge into storage
// and returns the counts. A page seen excluded since is no longer counted
// a carrier, and the other way round. Stored carriers that cannot be read
// (storage failing) are left as they are, and what this instance saw is
// merged at its next build; meanwhile it counts what this instance knows.
// Stored carriers too large or not JSON start afresh.
func (b *builder) learn(ctx context.Context) carrierCount {
	stored := learnedCarriers{}
	key := b.prefix + "carriers"
	v, err := loadLimited(ctx, b.st, key, maxLearnedBytes)
	readable := true
	switch {
	case err == nil:
		if json.Unmarshal(v, &stored) != nil {
			stored = learnedCarriers{}
		}
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errTooLarge):
		b.h.logger.Warn("the learned lazarus carrier pages are too large; learning them afresh", zap.Error(err))
	default:
		b.h.logger.Warn("reading the learned lazarus carrier pages", zap.Error(err))
		readable = false
	}
	seen := b.h.learned.take()
	rolled := stored.roll(b.h.now())
	pages, earlier, excluded, queries := toSet(stored.Pages), toSet(stored.Earlier), toSet(stored.Excluded), toSet(stored.Queries)
	grewPages := merge(pages, seen.pages, excluded, earlier)
	grewExcluded := merge(excluded, seen.excluded, pages, earlier)
	grew := merge(queries, seen.querys) || grewPages || grewExcluded || rolled
	switch {
	case !readable:
		b.h.learned.putBack(seen)
	case grew:
		out := learnedCarriers{Pages: fromSet(pages), Earlier: fromSet(earlier), Since: stored.Since, Excluded: fromSet(excluded), Queries: fromSet(queries)}
		v, err := json.Marshal(out)
		if err == nil {
			err = b.st.Store(ctx, key, v)
		}
		if err != nil {
			b.h.logger.Warn("storing the learned lazarus carrier pages", zap.Error(err))
			b.h.learned.putBack(seen)
		}
	}
	return carrierCount{pages: min(len(pages)+len(earlier), maxLearned), excluded: len(excluded), queries: len(queries)}
}

func toSet(hexes []string) map[string]bool {
	m := map[string]bool{}
	for _, h := range hexes {
		if len(h) == 32 && len(m) < maxLearned {
			m[h] = true
		}
	}
	return m
}

func fromSet(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// merge adds seen to into (bounded), removing each from the others; it
// reports whether anything changed.
func merge(into map[string]bool, seen map[[16]byte]bool, others ...map[string]bool) bool {
	changed := false
	for k := range seen {
		h := hex.EncodeToString(k[:])
		for _, other := range others {
			if other[h] {
				delete(other, h)
				changed = true
			}
		}
		if !into[h] && len(into) < maxLearned {
			into[h] = true
			changed = true
		}
	}
	return changed
}

// plannedCarriers is the page count the code is planned for: the carrier
// pages learned, once any is known; before, the Carriers stand-in, said
// at warning level.
func (b *builder) plannedCarriers(c carrierCount) int {
	if c.known() {
		return max(1, c.pages)
	}
	b.h.logger.Warn("no carrier page of the site learned yet (none served under a generation): the code is planned for the carriers stand-in; the next build plans for the pages learned",
		zap.Int("carriers", b.min))
	return b.min
}

// pagesNeeded is the fewest pages that hold k blocks of every stripe of
// the generation res reports, at the page budget (and, with light pages,
// one block of a stripe on a page).
func pagesNeeded(res *injector.Report, budget int64, light bool) int {
	bytes, most := int64(0), 0
	for _, s := range res.Segments {
		bytes += int64(s.Stripes) * int64(s.K) * armoredSize(int64(s.ShardSize))
		most = max(most, s.K)
	}
	need := int((bytes + budget - 1) / max(budget, 1))
	if light {
		need = max(need, most)
	}
	return need
}

// checkCarriers compares the pages the generation needs with the carrier
// pages learned: too few is an error, logged with the remedies, and the
// gauges say both. The pages learned are those served so far, which may
// be fewer than the site links (a site just protected, or seldom
// visited), so the message says "so far" and a remedy says how to serve
// the rest; page_budget is named when the backup's bytes, not its
// stripes' k, need the pages.
func (b *builder) checkCarriers(res *injector.Report, c carrierCount) {
	need := pagesNeeded(res, b.h.PageBudget, !b.h.Fill)
	m := b.h.metrics.carrierPages
	m.WithLabelValues(b.h.Name, "needed").Set(float64(need))
	m.WithLabelValues(b.h.Name, "excluded").Set(float64(c.excluded))
	if !c.known() {
		m.WithLabelValues(b.h.Name, "learned").Set(-1)
		return
	}
	m.WithLabelValues(b.h.Name, "learned").Set(float64(c.pages))
	if c.pages >= need {
		return
	}
	remedies := verify.CarrierRemedies(verify.CarrierFacts{Excluded: c.excluded, Queries: c.queries})
	if c.pages > 0 && b.h.PageBudget < b.h.MaxPageBytes && pagesNeeded(res, b.h.PageBudget, false) > c.pages {
		remedies = append(remedies, fmt.Sprintf("raise page_budget (now %s; pages stay under max_page_bytes, %s): each page carries more of the backup, and every visitor downloads it",
			humane.Bytes(b.h.PageBudget), humane.Bytes(b.h.MaxPageBytes)))
	}
	remedies = append(remedies, "if the site links more pages than that, they have not been served since the module started learning: "+
		"they count once served (a crawl of the whole site, such as lazarus verify --url SITE, serves each linked page), at the next build")
	b.h.logger.Error(fmt.Sprintf("lazarus generation cannot be recovered from the pages archives would keep: k blocks of every stripe need %d pages, and %d pages that can carry them have been served so far", need, c.pages),
		zap.String("generation", res.Generation), zap.Int("pages_needed", need), zap.Int("carrier_pages", c.pages),
		zap.Int("pages_excluded", c.excluded), zap.Int("query_links", c.queries),
		zap.Strings("remedies", remedies))
}
