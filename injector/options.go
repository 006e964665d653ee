package injector

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/codec"
)

// Defaults of the options that have one.
const (
	DefaultMaxBlockBytes = 48 << 10
	DefaultPageBudget    = 256 << 10
	DefaultMaxPageBytes  = 1<<20 - 64<<10 // stay clear of Common Crawl's 1 MiB record cut
	DefaultRedundancy    = 1.0
	DefaultKeepPrevious  = 1
	DefaultDumpTimeout   = 10 * time.Minute
)

// OptionsError lists every problem with the options of a run; nothing
// was done.
type OptionsError struct{ Problems []error }

// Error joins the problems.
func (e *OptionsError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "; ")
}

// Errors callers branch on.
var (
	// ErrLocked means another inject run holds the state directory.
	ErrLocked = errors.New("another lazarus inject is running (state directory locked)")
	// ErrDump means a --dump command failed; nothing was changed.
	ErrDump = errors.New("dump command failed")
)

// Include is one source to preserve: a directory or a file, and the
// segment it goes into (by default the base name of Path).
type Include struct {
	Path    string
	Segment string
}

// Dump is a command whose standard output is preserved as a file named
// Name in a segment named Name (e.g. db = "mysqldump --single-transaction app").
type Dump struct {
	Name    string
	Command string
}

// Options configure one inject run. Start from DefaultOptions.
type Options struct {
	// What to preserve.
	Includes     []Include
	Excludes     []string      // gitignore-style patterns, relative to each include root
	Dumps        []Dump        // run with "sh -c"; non-zero exit or timeout aborts the run
	DumpTimeout  time.Duration // per command; defaults to 10 minutes
	AllOrNothing bool          // one segment for everything instead of one per include and dump

	// How: exactly one of ServerKey (the contents of server.key),
	// Passphrase, or Public (no encryption; signed with ServerKey if given).
	ServerKey            []byte
	Passphrase           []byte
	Public               bool
	PassphraseWorkFactor int    // scrypt log2 N for passphrase mode; 0 = age's default 18
	SiteURL              string // the site's public URL, recorded in the manifest

	MaxBlockBytes int     // z, shard bytes per block; defaults to 48 KiB
	PageBudget    int     // most bytes added to any one page; defaults to 256 KiB
	MaxPageBytes  int     // pages (with blocks) stay below this; defaults to 960 KiB
	Redundancy    float64 // parity blocks per data block, > 0; defaults to 1.0
	KeepPrevious  int     // previous generations kept beside the new one while room allows; defaults to 1

	// Where: at least one of SiteDir, BundleDir, SnippetsDir.
	SiteDir     string   // static site whose .html pages are rewritten in place
	BundleDir   string   // generations for the Caddy module
	SnippetsDir string   // one include file per page URL
	URLs        []string // carrier page paths for SnippetsDir when there is no SiteDir ("/", "/about/")
	// Carriers plans a bundle for pages whose URLs are not known yet (a
	// dynamic site behind the Caddy module, which places the blocks as
	// pages are served): the code is planned for this many pages, or for
	// as many as the blocks need at PageBudget each if that is more, and
	// the bundle's plan names no pages. Only with BundleDir alone.
	Carriers int
	StateDir string // what inject remembers between runs (required)

	Notice string           // optional visible line, "{date}" replaced, changed only when blocks change
	DryRun bool             // plan and report, write nothing
	Now    func() time.Time // defaults to time.Now
	Log    func(msg string) // warnings and progress; nil = silent
}

// DefaultOptions returns options with every default filled in.
func DefaultOptions() Options {
	return Options{
		DumpTimeout: DefaultDumpTimeout, MaxBlockBytes: DefaultMaxBlockBytes, PageBudget: DefaultPageBudget,
		MaxPageBytes: DefaultMaxPageBytes, Redundancy: DefaultRedundancy, KeepPrevious: DefaultKeepPrevious,
		Now: time.Now,
	}
}

// Validate checks the options without running anything: every problem
// is listed in an *OptionsError. Run checks them too.
func (o Options) Validate() error {
	return o.validate()
}

// validate checks the options and fills the defaults of zero values.
func (o *Options) validate() error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.DumpTimeout == 0 {
		o.DumpTimeout = DefaultDumpTimeout
	}
	if o.MaxBlockBytes == 0 {
		o.MaxBlockBytes = DefaultMaxBlockBytes
	}
	if o.PageBudget == 0 {
		o.PageBudget = DefaultPageBudget
	}
	if o.MaxPageBytes == 0 {
		o.MaxPageBytes = DefaultMaxPageBytes
	}
	var errs []error
	if len(o.Includes) == 0 && len(o.Dumps) == 0 {
		errs = append(errs, errors.New("nothing to preserve: give --include or --dump"))
	}
	if o.SiteDir == "" && o.BundleDir == "" && o.SnippetsDir == "" {
		errs = append(errs, errors.New("nowhere to write: give --site, --bundle or --snippets"))
	}
	if o.StateDir == "" {
		errs = append(errs, errors.New("no state directory"))
	}
	if o.Carriers < 0 || o.Carriers > 0 && (o.BundleDir == "" || o.SiteDir != "" || o.SnippetsDir != "" || len(o.URLs) > 0) {
		errs = append(errs, errors.New("planning for unknown pages (Carriers) needs a bundle directory and no site, snippets or URL list"))
	}
	if o.SnippetsDir != "" && o.SiteDir == "" && len(o.URLs) == 0 {
		errs = append(errs, errors.New("--snippets needs --site or a list of page URLs"))
	}
	errs = append(errs, o.validateKey(), o.validateSizes(), o.validateSiteURL(), o.validateNames())
	var problems []error
	for _, e := range errs {
		if e == nil {
			continue
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			problems = append(problems, j.Unwrap()...)
		} else {
			problems = append(problems, e)
		}
	}
	if len(problems) > 0 {
		return &OptionsError{Problems: problems}
	}
	return nil
}

func (o *Options) validateKey() error {
	n := 0
	for _, set := range []bool{len(o.ServerKey) > 0 && !o.Public, len(o.Passphrase) > 0, o.Public} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errors.New("choose exactly one of --key, --passphrase-file or --public")
	}
	return nil
}

func (o *Options) validateSizes() error {
	switch {
	case o.MaxBlockBytes < 1024 || o.MaxBlockBytes > 16<<20:
		return fmt.Errorf("--max-block-bytes %d out of range 1 KiB..16 MiB", o.MaxBlockBytes)
	case o.PageBudget < 4096:
		return fmt.Errorf("--page-budget %d is below 4 KiB", o.PageBudget)
	case o.Redundancy <= 0 || o.Redundancy > 255:
		return fmt.Errorf("--redundancy %g out of range (0, 255]", o.Redundancy)
	case o.KeepPrevious < 0 || o.KeepPrevious > 16:
		return fmt.Errorf("--keep-previous %d out of range 0..16", o.KeepPrevious)
	case o.DumpTimeout < 0:
		return fmt.Errorf("--dump-timeout %v is negative", o.DumpTimeout)
	}
	return nil
}

func (o *Options) validateSiteURL() error {
	u, err := url.Parse(o.SiteURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return fmt.Errorf("--site-url %q must be an absolute http(s) URL such as https://example.org/", o.SiteURL)
	}
	return nil
}

// validateNames checks segment names and the top-level names entries are
// restored under: an include's base name, a dump's name. Includes may
// share a segment; a dump has a segment of its own.
func (o *Options) validateNames() error {
	var errs []error
	tops := map[string]string{}
	segs := map[string]string{}
	add := func(seg, top, what string, own bool) {
		if err := codec.CheckSegmentName(seg); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
		if prev, ok := tops[top]; ok {
			errs = append(errs, fmt.Errorf("%s and %s would both restore as %q; rename one", prev, what, top))
		}
		tops[top] = what
		if prev, ok := segs[seg]; ok && (own || strings.HasPrefix(prev, "dump")) && !o.AllOrNothing {
			errs = append(errs, fmt.Errorf("%s and %s both use segment %q; a dump needs a segment of its own", prev, what, seg))
		}
		segs[seg] = what
	}
	for _, in := range o.Includes {
		add(in.segment(), in.top(), "include "+in.Path, false)
	}
	for _, d := range o.Dumps {
		if strings.TrimSpace(d.Command) == "" {
			errs = append(errs, fmt.Errorf("dump %s: empty command", d.Name))
		}
		add(d.Name, d.Name, "dump "+d.Name, true)
	}
	return errors.Join(errs...)
}

// top is the name the include is restored under: its base name.
func (in Include) top() string {
	return filepath.Base(filepath.Clean(in.Path))
}

// segment is the include's segment: as given, else its base name.
func (in Include) segment() string {
	if in.Segment != "" {
		return in.Segment
	}
	return in.top()
}
