package verify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// Defaults of VerifyOptions.
const (
	// DefaultRate is the default VerifyOptions.Rate (requests per
	// minute): higher than for archives, as the site is the user's own.
	DefaultRate = 600
	// DefaultMaxPages is the default VerifyOptions.MaxPages.
	DefaultMaxPages = 10_000
	// DefaultMaxBytes is the default VerifyOptions.MaxBytes.
	DefaultMaxBytes = 1 << 30
	// DefaultTruncateAt is the default VerifyOptions.TruncateAt: Common
	// Crawl cuts records at 1 MiB.
	DefaultTruncateAt = 1 << 20
	// DefaultHygienePages is the default VerifyOptions.HygienePages.
	DefaultHygienePages = 20
)

// Errors Verify returns, which callers branch on.
var (
	// ErrShort means some segment of the newest generation cannot be
	// rebuilt from the pages archives would keep, or its manifest is on
	// none of them: the error names the stripes and by how many blocks
	// each falls short, or says where the manifest was seen, if anywhere.
	ErrShort = errors.New("not every segment can be rebuilt from the pages archives would keep")
	// ErrSiteUnreachable means the site's root page could not be fetched.
	ErrSiteUnreachable = errors.New("site unreachable")
	// ErrNoGeneration means no block or manifest signed by the key was
	// found on the site (the error says what was found instead).
	ErrNoGeneration = errors.New("no Lazarus generation found on the site")
	// ErrRestoreMismatch means the trial restore (with the owner key or
	// passphrase) did not give back the files the generation's listing
	// names, byte for byte: the backup cannot be trusted.
	ErrRestoreMismatch = errors.New("trial restore does not match the listing")
)

// Options configure Verify. Exactly one of ServerKey, OwnerKey and
// Passphrase is needed.
type Options struct {
	// SiteURL is the site's public URL, whose root page the crawl starts
	// from; required, an absolute http or https URL.
	SiteURL string
	// ServerKey is the contents of server.key: signatures are checked with
	// its public half; nothing is decrypted.
	ServerKey []byte
	// OwnerKey is the contents of owner.key: signatures are checked and the
	// newest generation is also restored into a temporary directory and
	// compared with its listing.
	OwnerKey []byte
	// Passphrase, for passphrase-mode sites, does what OwnerKey does.
	Passphrase []byte
	// Client sends the requests; defaults to a client like NewClient's,
	// with Rate and Contact, that leaves redirects to the crawl (a Client
	// that follows them itself works too).
	Client source.Doer
	// Rate is the requests per minute sent to the site when Client is nil;
	// defaults to DefaultVerifyRate.
	Rate float64
	// Contact is added to the User-Agent when Client is nil.
	Contact string
	// SkipQuery makes the crawl ignore links with a query string, as
	// crawlers that avoid them do (McCown recovered 11% of such URLs from
	// archives, against 73% of the others). Defaults to false: such links
	// are followed exactly as the site gives them; the crawl never adds a
	// query string of its own.
	SkipQuery bool
	// MaxPages bounds the requests of the crawl; defaults to
	// DefaultVerifyMaxPages.
	MaxPages int
	// MaxBytes bounds the bytes of all pages read; defaults to
	// DefaultVerifyMaxBytes.
	MaxBytes int64
	// TruncateAt is where archives cut a page: blocks and manifests that
	// end past it are "truncated", and links past it are not followed.
	// Defaults to DefaultTruncateAt.
	TruncateAt int64
	// SiteDir, if set, is the static site's directory: its HTML files that
	// no crawled URL serves are read for blocks that only unlinked pages
	// hold (the crawl cannot see them). Defaults to none.
	SiteDir string
	// History are the site's serve histories (inject's STATE/history,
	// the Caddy module's lazarus/NAME/history): which page carries which
	// blocks and manifest of each generation. With them, or with the
	// owner key (the listing), Verify names the pages that lost their
	// blocks (VerifyReport.Missing) and fetches the planned carriers no
	// link reaches. Defaults to none: the manifest's listing carriers are
	// the whole plan.
	History []history.Store
	// HygienePages is how many carriers, besides the root page, get the
	// signal checks (two GETs give the same bytes and validators, a
	// conditional GET gets 304); the root page and the first three of them
	// also get the content-coding check (VerifyReport.Encodings). Defaults
	// to DefaultHygienePages; negative means none, not even the root page.
	HygienePages int
	// TempDir holds the trial restore and the assembler's spool files;
	// defaults to os.TempDir(). Everything written there is removed.
	TempDir string
	// Progress, if set, is called as pages are fetched and at each phase.
	Progress func(Progress)
}

// Progress is a snapshot of a running Verify.
type Progress struct {
	Phase   string // "crawl", "unlinked", "hygiene" or "restore"
	Fetched int    // pages requested so far
	Queued  int    // pages found and not yet requested
	Bytes   int64  // bytes of pages read
}

// normalized returns o with its defaults, or why it cannot be used.
func (o Options) normalized() (Options, *url.URL, error) {
	u, err := url.Parse(o.SiteURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return o, nil, fmt.Errorf("site URL %q is not an absolute http(s) URL without query", o.SiteURL)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	switch {
	case o.Rate < 0, o.MaxPages < 0, o.MaxBytes < 0, o.TruncateAt < 0:
		return o, nil, errors.New("negative rate, page count or byte bound")
	case o.Rate == 0:
		o.Rate = DefaultRate
	}
	if o.Client == nil {
		o.Client = newVerifyClient(o.Rate, o.Contact)
	}
	setDefault(&o.MaxPages, DefaultMaxPages)
	setDefault(&o.MaxBytes, DefaultMaxBytes)
	setDefault(&o.TruncateAt, DefaultTruncateAt)
	if o.HygienePages == 0 {
		o.HygienePages = DefaultHygienePages
	}
	return o, u, nil
}

func setDefault[T int | int64](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

// opener returns the keys Verify works with, and whether they decrypt.
func (o *Options) opener() (*keys.Opener, bool, error) {
	given := 0
	for _, k := range [][]byte{o.ServerKey, o.OwnerKey, o.Passphrase} {
		if len(k) > 0 {
			given++
		}
	}
	if given != 1 {
		return nil, false, errors.New("verify needs exactly one of the server key, the owner key or the passphrase")
	}
	if len(o.ServerKey) > 0 {
		s, err := keys.ParseServer(o.ServerKey)
		if err != nil {
			return nil, false, err
		}
		return &keys.Opener{Verifier: s.Verifier()}, false, nil
	}
	op, err := keys.OpenerFor(o.OwnerKey, o.Passphrase, false)
	return op, err == nil, err
}

// Run checks the live site the way an archive crawler sees it, before
// the site is lost: can the newest generation be rebuilt from the pages
// archives would keep?
//
// It crawls from the root page by links only (a, area, frame, iframe,
// honouring <base>), on the site's host and under its path, links with a
// query string as the site gives them unless SkipQuery. robots.txt is
// read as each archive's crawler reads it: the Internet Archive's
// (ia_archiver and archive.org_bot) and Common Crawl's (CCBot), each by
// its own group or else the "*" group. A page counts as kept when at
// least one of them may fetch it and reaches it by links through pages it
// may fetch (VerifyReport.Archives says what each would keep, and
// Warnings when robots.txt shuts one out). A page no archive would keep,
// or marked noindex or noarchive (robots <meta> or X-Robots-Tag), is
// still fetched once — Run is the owner's tool, not an archive — to
// see what it carries, but its blocks do not count, and the links of such
// robots-excluded and of nofollow pages are not followed. A directory's
// index file and the directory ("/index.html" and "/") are one page.
// Blocks that end past TruncateAt are truncated and do not count either,
// nor do those on a page whose Content-Type is missing or not text/html
// or application/xhtml+xml, which recover's listing skips (see
// listedType: such pages are still read when they may carry blocks).
// With SiteDir, and with the owner key for the carriers the listing
// names, pages no link reaches are read too, and their blocks reported
// as unlinked.
//
// The newest generation is the newest verified manifest's, or, without
// one, the newest signed blocks'; unless its manifest is on a page
// archives would keep, Run is short (recovery needs the manifest to
// know the generation's segments, and a segment whose blocks are all
// gone would not show). For each of its segments the report
// says how many blocks of each stripe archives would keep against the k
// needed, and whether the segment rebuilds and matches its id. It also
// says whether the manifest is on the root page and the one-hop pages,
// which pages hold blocks archives would not keep, and how the root page
// and up to HygienePages carriers answer repeated and conditional GETs.
// With the owner key or passphrase it restores the generation into a
// temporary directory, compares every file with the listing, and removes
// it.
//
// With a placement plan (the owner key's listing, or VerifyOptions.History)
// it also names the pages that should carry blocks or the manifest and
// do not.
//
// The report is returned whenever the crawl ran (not with
// ErrSiteUnreachable), with ErrShort,
// ErrNoGeneration, ErrRestoreMismatch or ErrSiteUnreachable (wrapped) when
// the generation is not safe; nil means the generation's manifest and
// enough blocks of every segment are on pages archives would keep (and
// the trial restore, if any, matched).
// Signal problems are reported, not errors.
func Run(ctx context.Context, o Options) (*Report, error) {
	v, decrypts, err := newVerification(o)
	if err != nil {
		return nil, err
	}
	defer v.a.Close()
	if err := v.run(ctx, decrypts); err != nil {
		if errors.Is(err, ErrSiteUnreachable) {
			return nil, err // no crawl ran: nothing to report
		}
		return v.rep, err
	}
	return v.rep, v.verdict()
}

// newVerification checks o and sets up a verification: the key opener
// and the assembler (closed by the caller), an empty report. decrypts
// says the key can restore (owner.key or passphrase).
func newVerification(o Options) (v *verification, decrypts bool, err error) {
	o, root, err := o.normalized()
	if err != nil {
		return nil, false, err
	}
	op, decrypts, err := o.opener()
	if err != nil {
		return nil, false, err
	}
	a, err := codec.NewAssembler(op, codec.Options{TempDir: o.TempDir})
	if err != nil {
		return nil, false, err
	}
	v = &verification{o: o, root: root, a: a, verifier: op.Verifier, t: newTally(), rep: &Report{Site: root.String(), Segments: []Segment{},
		Excluded: []ExcludedPage{}, Hygiene: []HygieneCheck{}, Encodings: []EncodingCheck{}, Missing: []MissingPage{}, Archives: []ArchiveReach{}}}
	return v, decrypts, nil
}

// run crawls, reads the unlinked pages, picks the newest generation,
// judges it, checks the signals and, if decrypts, restores it.
func (v *verification) run(ctx context.Context, decrypts bool) error {
	start := time.Now()
	err := v.crawl(ctx)
	v.rep.Crawl.DurationSeconds = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	if v.o.SiteDir != "" {
		v.progress("unlinked")
		if err := v.unlinkedFiles(ctx); err != nil {
			return err
		}
	}
	v.a.Settle()
	if v.target = v.t.newest(v.rep); v.target == nil {
		v.rep.Rejected, v.rep.Foreign, v.rep.Unsigned = v.t.rejected, v.t.foreign, v.t.unsigned
		return v.nothing()
	}
	plan := v.plan(ctx)
	if err := v.unlinkedCarriers(ctx, plan); err != nil {
		return err
	}
	v.conclude()
	v.missing(plan)
	if err := v.hygiene(ctx); err != nil {
		return err
	}
	if decrypts {
		v.progress("restore")
		return v.trialRestore(ctx)
	}
	return nil
}

// verdict is Verify's error once everything ran: the missing manifest
// and the short segments, or nil.
func (v *verification) verdict() error {
	var short []string
	if why := v.noManifest(); why != "" {
		short = append(short, why)
	}
	for _, s := range v.rep.Segments {
		if !s.Rebuildable {
			short = append(short, s.why())
		}
	}
	if why := codingsShort(v.rep.Encodings); why != "" {
		short = append(short, why)
		v.rep.Rebuildable = false
	}
	if len(short) > 0 {
		if v.rep.MissingPages > 0 {
			short = append(short, "pages missing their blocks: "+missingSummary(v.rep, 5))
		}
		return fmt.Errorf("%w: %s", ErrShort, strings.Join(short, "; "))
	}
	return nil
}

// verification is one Verify run.
type verification struct {
	o           Options
	root        *url.URL
	a           *codec.Assembler
	verifier    *keys.Verifier
	t           *tally
	rep         *Report
	crawled     map[string]bool // paths (with query) of the pages the crawl fetched
	crawledKeys map[string]bool // their pageKeys
	target      *generation     // the newest generation, once chosen
}

// crawl runs the archive-like crawl and scans every page it fetches.
func (v *verification) crawl(ctx context.Context) error {
	cfg := crawlConfig{site: v.root, client: v.o.Client, skipQuery: v.o.SkipQuery,
		maxPages: v.o.MaxPages, maxBytes: v.o.MaxBytes, maxPage: source.DefaultMaxCapture, linkBytes: v.o.TruncateAt,
		progress: func(fetched, queued int, bytes int64) {
			if v.o.Progress != nil {
				v.o.Progress(Progress{Phase: "crawl", Fetched: fetched, Queued: queued, Bytes: bytes})
			}
		}}
	res, err := crawl(ctx, cfg, v.visit)
	if res != nil {
		v.rep.Crawl.fill(res)
		v.crawled, v.crawledKeys = res.paths, res.keys
	}
	return err
}

func (v *verification) progress(phase string) {
	if v.o.Progress != nil {
		c := v.rep.Crawl
		v.o.Progress(Progress{Phase: phase, Fetched: c.Requests, Bytes: c.Bytes})
	}
}
