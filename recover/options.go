package recover

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/optionerr"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// Errors callers branch on.
var (
	// ErrNothingFound means nothing could be restored: no segment of any
	// generation was found (the error says why: blocks signed by another
	// key, sources that could not be read, pages without blocks).
	ErrNothingFound = errors.New("nothing could be restored")
	// ErrPartial means Lazarus data was found but the result is not the
	// newest coherent restore point: some segments (maybe all) could not
	// be rebuilt, or the errors below. Report.Segments and Report.Newer
	// say what was restored from which generation.
	ErrPartial = errors.New("recovery incomplete")
	// ErrOlder (wrapped with ErrPartial) means a whole generation was
	// restored, but a newer one was seen and could not be rebuilt: a
	// rollback the user must know about.
	ErrOlder = errors.New("an older generation was restored")
	// ErrNotCoherent (wrapped with ErrPartial) means no verified manifest
	// had every data segment complete: each segment was restored from the
	// newest version found, maybe from different generations.
	ErrNotCoherent = errors.New("no coherent restore point")
	// ErrWrite means the output directory, or the report in it, could
	// not be written (permissions, a full disk, a read-only file system):
	// a local problem, not missing blocks. Report.Segments says which
	// segments were written ("rebuilt") and which were whole but could
	// not be ("unwritten").
	ErrWrite = errors.New("cannot write the output directory")
)

// Options configure a recovery.
type Options struct {
	// OwnerKey is the contents of owner.key; or give Passphrase.
	OwnerKey []byte
	// Passphrase recovers passphrase-mode sites.
	Passphrase []byte
	// AllowUnsigned accepts unsigned (public, keyless) generations, which
	// anyone could have made. Defaults to false.
	AllowUnsigned bool
	// Out is the directory files are restored into; it is created if
	// missing. Existing files are never overwritten unless Force.
	Out   string
	Force bool
	// TempDir holds temporary segment files; defaults to os.TempDir().
	TempDir string
	// SiteURL is the site's public URL, as injector.Options.SiteURL
	// (optional for mirror directories and WARC files).
	SiteURL string
	// Sources are where Recover looks for captures.
	Sources []Source
	// MaxCapture bounds one capture's bytes; defaults to 32 MiB.
	MaxCapture int64
	// At, if set, restores the newest generation made at or before it.
	At time.Time
	// Generation, if set, restores that generation (32 hex digits).
	Generation string
	// PagesDir, if set, receives the newest capture of every page with its
	// Lazarus comments removed: a browsable mirror. Every capture is then
	// fetched, not only until the server side is complete.
	PagesDir string
	// Progress, if set, is called after every fetched capture.
	Progress func(Progress)
	// StateDir journals listings and fetched captures so an interrupted
	// run resumes without fetching again; empty means no journal.
	StateDir string
}

// DefaultOptions returns options with every default filled in: the
// capture bound. What to restore into (Out), with which key and from
// which Sources is the caller's.
func DefaultOptions() Options {
	return Options{MaxCapture: DefaultMaxCapture}
}

// Validate checks the options without running anything: every problem
// is listed in an *OptionsError, each an *OptionError naming its field.
// Run checks them too.
func (o Options) Validate() error {
	var problems []error
	add := func(field, format string, args ...any) {
		problems = append(problems, optionerr.Errorf(field, format, args...))
	}
	if o.Out == "" {
		add("Out", "no output directory")
	}
	switch {
	case len(o.OwnerKey) > 0 && len(o.Passphrase) > 0:
		add("OwnerKey", "give an owner key or a passphrase, not both")
	case len(o.OwnerKey) == 0 && len(o.Passphrase) == 0 && !o.AllowUnsigned:
		add("OwnerKey", "recovery needs the owner key or the passphrase (or unsigned data allowed, for public data)")
	}
	if o.SiteURL != "" {
		if u, err := url.Parse(o.SiteURL); err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
			add("SiteURL", "site URL %q is not an absolute http or https URL", o.SiteURL)
		}
	}
	if o.Generation != "" {
		if _, err := manifest.ParseID(o.Generation); err != nil {
			add("Generation", "generation %q is not 32 hexadecimal digits", o.Generation)
		}
	}
	if o.MaxCapture < 0 {
		add("MaxCapture", "negative capture bound %d", o.MaxCapture)
	}
	if len(o.Sources) == 0 {
		add("Sources", "no source to recover from")
	}
	return optionerr.Join(problems)
}

// OptionsError lists every problem with the options of a run; nothing
// was done. Each problem is an *OptionError.
type OptionsError = optionerr.List

// OptionError is one problem with the options, stated as a fact: Field is
// the Options field at fault, Msg the fact, without field or flag names.
type OptionError = optionerr.Error

func (o *Options) opener() (*keys.Opener, error) {
	op, err := keys.OpenerFor(o.OwnerKey, o.Passphrase, o.AllowUnsigned)
	if errors.Is(err, keys.ErrNoOwnerKey) {
		return nil, errors.New("recovery needs the owner key or the passphrase (or AllowUnsigned for public data)")
	}
	return op, err
}

func (o *Options) assembler() (*codec.Assembler, error) {
	if o.Out == "" {
		return nil, fmt.Errorf("no output directory")
	}
	op, err := o.opener()
	if err != nil {
		return nil, err
	}
	return codec.NewAssembler(op, codec.Options{TempDir: o.TempDir, AllowUnsigned: o.AllowUnsigned})
}

// Progress is a snapshot of a running recovery.
type Progress struct {
	Listed   int // captures listed
	Fetched  int // captures fetched so far (journaled ones included)
	Stripes  int // stripes of the segments seen so far
	Complete int // of which rebuilt
}

// wants reports whether a manifest is an allowed restore point.
func (o *Options) wants(m *manifest.Signed) bool {
	if o.Generation != "" && m.Manifest.Generation.String() != o.Generation {
		return false
	}
	return o.At.IsZero() || !m.Manifest.Time.After(o.At)
}

// otherSites returns the generations to leave out because their verified
// manifests name a site other than SiteURL (one key may sign several
// sites), when at least one manifest names SiteURL's site: then those are
// the site asked for. When none does (the site URL was recorded
// otherwise: a development address, a move to a new domain), nothing is
// left out — losing the data would be worse — and the report names the
// site the manifests give. An explicit Generation is never left out.
func (o *Options) otherSites(manifests []*manifest.Signed) map[manifest.ID]bool {
	other := map[manifest.ID]bool{}
	if o.SiteURL == "" || o.Generation != "" {
		return other
	}
	site, err := url.Parse(o.SiteURL)
	if err != nil {
		return other
	}
	own := false
	for _, m := range manifests {
		if siteurl.SameSite(m.Manifest.Site, site) {
			own = true
		} else {
			other[m.Manifest.Generation] = true
		}
	}
	if !own {
		return map[manifest.ID]bool{}
	}
	return other
}

// namesSite reports whether m names SiteURL's site (true when no site
// URL is given, or a Generation is asked for).
func (o *Options) namesSite(m *manifest.Signed) bool {
	if o.SiteURL == "" || o.Generation != "" {
		return true
	}
	site, err := url.Parse(o.SiteURL)
	return err != nil || siteurl.SameSite(m.Manifest.Site, site)
}

// madeFor returns the site m names when SiteURL is given and m names
// another site (Report.MadeFor), else "".
func (o *Options) madeFor(m *manifest.Signed) string {
	site, err := url.Parse(o.SiteURL)
	if o.SiteURL == "" || err != nil || siteurl.SameSite(m.Manifest.Site, site) {
		return ""
	}
	return m.Manifest.Site
}

// recordedElsewhere returns the sites the manifests name when none of
// them names SiteURL's site (recovered anyway, see otherSites), sorted.
func recordedElsewhere(manifests []*manifest.Signed, o *Options) []string {
	if o.SiteURL == "" {
		return nil
	}
	site, err := url.Parse(o.SiteURL)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range manifests {
		if siteurl.SameSite(m.Manifest.Site, site) {
			return nil
		}
		if !seen[m.Manifest.Site] {
			seen[m.Manifest.Site] = true
			out = append(out, m.Manifest.Site)
		}
	}
	sort.Strings(out)
	return out
}

// otherSiteNames returns the distinct sites otherSites found, sorted.
func otherSiteNames(manifests []*manifest.Signed, o *Options) []string {
	other := o.otherSites(manifests)
	seen := map[string]bool{}
	var out []string
	for _, m := range manifests {
		if other[m.Manifest.Generation] && !seen[m.Manifest.Site] {
			seen[m.Manifest.Site] = true
			out = append(out, m.Manifest.Site)
		}
	}
	sort.Strings(out)
	return out
}

// wantsLayout reports whether a segment version may be restored when no
// manifest says which generation it belongs to.
func (o *Options) wantsLayout(l block.Layout) bool {
	if o.Generation != "" && manifest.ID(l.Generation).String() != o.Generation {
		return false
	}
	return o.At.IsZero() || l.Time <= o.At.Unix()
}
