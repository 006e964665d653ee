package injector

import (
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Defaults of the options that have one. DefaultOptions is the one place
// they are filled in; callers (the CLI, its configuration file, the Caddy
// module) start from it. The block size and redundancy are the placement
// algorithm's own defaults, so there is one number for each.
const (
	DefaultMaxBlockBytes = placement.DefaultMaxBlockBytes // 48 KiB
	DefaultPageBudget    = 256 << 10
	DefaultMaxPageBytes  = 1<<20 - 64<<10              // stay clear of Common Crawl's 1 MiB record cut (before February 2025)
	DefaultRedundancy    = placement.DefaultRedundancy // 1.0
	DefaultTarget        = placement.DefaultTarget     // 0.999
	DefaultKeepPrevious  = 1
	DefaultDumpTimeout   = 10 * time.Minute
)

// CrawlTruncation is where Common Crawl cuts a captured record, 5 MiB
// since February 2025 (1 MiB before): the blocks of a page past it are
// lost in its crawls. A MaxPageBytes above it is planned as asked, with
// a warning in the report (the Wayback Machine keeps larger pages).
const CrawlTruncation = 5 << 20

// Archived is what an audit of the archives found (lazarus status): the
// newest generation they hold enough blocks and a manifest of.
type Archived struct {
	RestorePoint string // generation id; "" when they hold none
}

// Include is one source to preserve: a directory or a file, and the name
// of its segment, which is also where it is restored: a directory's files
// under NAME/; a single file keeps its file name, as NAME/BASE, or as
// BASE alone when NAME is its base name. Segment defaults to the base
// name of Path.
type Include struct {
	Path    string
	Segment string
}

// Dump is a command whose standard output is preserved as a file named
// Name in a segment named Name (e.g. db = "mysqldump --single-transaction app").
type Dump struct {
	Name    string
	Command string
	// Volatile are regular expressions (Go syntax) for lines of the output
	// that change without the data changing in substance, such as
	// "^-- Dump completed on" or a cache's rows: a line matching any of
	// them is left out when the output is compared with the last one, so
	// an output that differs from it in such lines only makes no new
	// generation (the generation keeps the output it has). What is
	// preserved is always the output byte for byte.
	Volatile []string
}

// Options configure one inject run. Start from DefaultOptions.
type Options struct {
	// What to preserve. Every include and dump has a name of its own: its
	// segment's name and where it is restored.
	Includes     []Include
	Excludes     []string      // gitignore-style patterns, relative to each include root
	Dumps        []Dump        // run with "sh -c" in a process group of their own; non-zero exit or timeout aborts the run
	DumpTimeout  time.Duration // per command; defaults to 10 minutes
	AllOrNothing bool          // one segment "all" for everything instead of one per include and dump

	// How: exactly one of ServerKey (the contents of server.key),
	// Passphrase, or Public (no encryption; signed with ServerKey if given).
	ServerKey            []byte
	Passphrase           []byte
	Public               bool
	PassphraseWorkFactor int    // scrypt log2 N for passphrase mode; 0 = age's default 18
	SiteURL              string // the site's public URL, recorded in the manifest

	// MaxBlockBytes is z, the most shard bytes per block, 1 KiB to 16
	// MiB. Zero chooses: with Target, blocks as large as fit PageBudget
	// (small segments still get small blocks); otherwise 48 KiB.
	MaxBlockBytes int
	PageBudget    int // most bytes added to any one page, at least 4 KiB; defaults to 256 KiB
	MaxPageBytes  int // pages (with blocks) stay below this; defaults to 960 KiB; above CrawlTruncation, with a warning
	// Target is the recoverability the plan aims for, in (0, 1): the
	// probability that the archives keep the manifest and k blocks of
	// every stripe if each page is kept with its Capture probability.
	// Each segment gets the block size and width that reach it with the
	// fewest bytes, and nothing more: PageBudget is a cap, not something
	// to fill. DefaultOptions sets 0.999. Zero plans by Redundancy instead.
	Target float64
	// Capture gives pages (by URL path, as "/about/") the probability that
	// the archives keep their current version, as lazarus status
	// estimates it; pages it does not name get 0.5. Used by target plans,
	// with values above MaxCapture taken as MaxCapture: no page is ever
	// certain to be kept, and a few captures soon after publishing make
	// high estimates.
	Capture map[string]float64
	// Requests, when set, plans a target plan for the capture requests
	// that follow the run, within their horizon, instead of Capture (see
	// Requests). Nil: no requests are counted on.
	Requests *Requests
	// Redundancy (with Target zero) is the parity blocks per data block,
	// in (0, 255]; defaults to 1.0.
	Redundancy float64
	// Fill lets spare room raise parity and put replicas on pages without
	// blocks, after what Target needs (or beyond Redundancy's parity):
	// parity until every stripe spans every carrier page (at most 256
	// blocks), then a copy of a block on each page still without one;
	// PageBudget caps it. A page never carries two blocks of one stripe,
	// so a small backup does not fill the pages: Report.FullWidth says
	// when the pages, not their room, were the limit.
	Fill bool

	KeepPrevious int // previous generations kept beside the new one while room allows, 0 to 16; defaults to 1
	// Archived, when not nil, is what lazarus status found the archives
	// hold: earlier generations then stay on the pages, room allowing,
	// down to the newest one the archives hold enough of (none once that
	// is the current one; all, up to 16, while they hold none), instead
	// of KeepPrevious of them: make-before-break by evidence.
	Archived *Archived
	// KeepMaxAge, if positive, drops earlier generations older than this
	// from the pages, whatever Archived says.
	KeepMaxAge time.Duration
	// AcceptShrink says that segments found empty or shrunk this run
	// (see Report.Shrunk) are expected: data deleted on purpose. Defaults
	// to false: such a segment is preserved with a warning, and the
	// generation before the shrink is held on the pages beside the new
	// ones, whatever KeepPrevious, Archived and KeepMaxAge say, until the
	// segment is back to its size or a run accepts the shrink.
	AcceptShrink bool

	// Where: at least one of SiteDir, BundleDir, SnippetsDir. The pages
	// come from SiteDir or, without it, from URLs.
	SiteDir     string   // static site whose .html pages are rewritten in place
	BundleDir   string   // generations for the Caddy module
	SnippetsDir string   // one include file per page URL
	URLs        []string // carrier page paths when there is no SiteDir ("/", "/about/")
	// Carriers plans a bundle for pages whose URLs are not known yet (a
	// dynamic site behind the Caddy module, which places the blocks as
	// pages are served): the code is planned for this many pages, or for
	// as many as the blocks need at PageBudget each if that is more, and
	// the bundle's plan names no pages. Only with BundleDir alone.
	Carriers int
	StateDir string // what inject remembers between runs (required); a dry run creates nothing in it

	// Sitemap, with SiteDir, writes a sitemap.xml of the site's linked
	// pages and names it in robots.txt, so crawlers that start from
	// sitemaps (Common Crawl) find new pages, unless the site announces
	// a sitemap of its own (see site.Announce). Defaults to false: it
	// writes files the site did not have.
	Sitemap bool

	Notice string           // optional visible line, "{date}" replaced, changed only when blocks change
	DryRun bool             // plan and report, write nothing (not even the state directory)
	Now    func() time.Time // defaults to time.Now
	// Abort, if not nil, stops a run in its write phase when it is closed
	// (before the new state is saved, Run's ctx stops a run; after that a
	// done ctx lets the run finish writing). The run stops between two
	// files, removes every temporary file it wrote, leaves each output file
	// old or new, and returns an error wrapping ErrWriteInterrupted; the
	// next run completes the outputs (Report.Completed). Defaults to nil:
	// a run that saved its state always finishes writing.
	Abort <-chan struct{}
	// Progress, if not nil, is called as the run moves on (see Progress);
	// from the goroutine that called Run. Defaults to nil: no reports.
	Progress func(Progress)
}

// DefaultOptions returns options with every default filled in.
func DefaultOptions() Options {
	o := Options{Target: DefaultTarget, Redundancy: DefaultRedundancy, KeepPrevious: DefaultKeepPrevious}
	o.fillDefaults()
	return o
}

// fillDefaults sets the options whose zero value means "the default"
// (Target, Redundancy and KeepPrevious have meaningful or invalid zeros, so only
// DefaultOptions sets them).
func (o *Options) fillDefaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.DumpTimeout == 0 {
		o.DumpTimeout = DefaultDumpTimeout
	}
	if o.PageBudget == 0 {
		o.PageBudget = DefaultPageBudget
	}
	if o.MaxPageBytes == 0 {
		o.MaxPageBytes = DefaultMaxPageBytes
	}
}

// Validate checks the options without running anything: every problem
// is listed in an *OptionsError. Run checks them too.
func (o Options) Validate() error {
	return o.validate()
}

// blockBudget is the block budget z the plan uses: MaxBlockBytes, or when
// zero the largest whole KiB whose block comment fits PageBudget in a
// target plan, else DefaultMaxBlockBytes.
func (o *Options) blockBudget() int {
	switch {
	case o.MaxBlockBytes > 0:
		return o.MaxBlockBytes
	case o.Target > 0:
		z := (o.PageBudget*3/4 - 1024) &^ 1023
		for z > 1024 && placement.BlockCommentBytes(block.MaxNameLen, z) > o.PageBudget {
			z -= 1024
		}
		return min(max(z, 1024), 16<<20)
	}
	return DefaultMaxBlockBytes
}

// MaxCapture is the highest capture probability a plan uses for a page
// (Options.Capture).
const MaxCapture = 0.9

// capture returns Capture with every probability at most MaxCapture.
func (o *Options) capture() map[string]float64 {
	if len(o.Capture) == 0 {
		return nil
	}
	out := make(map[string]float64, len(o.Capture))
	for u, p := range o.Capture {
		out[u] = min(p, MaxCapture)
	}
	return out
}
