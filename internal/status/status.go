package status

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/problems"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// ErrTooManySources means Status was given more sources than it tallies
// (MaxStatusSources).
var ErrTooManySources = errors.New("too many sources")

// MaxSources bounds Options.Sources.
const MaxSources = 64

// Run audits what the archives hold of the site, before it is lost.
//
// It lists every source's captures of the site (not collapsed by digest)
// and works out what each holds: a capture whose digest the serve
// history records is known without being fetched (the record names its
// generations and blocks), on the archive's word but for SpotChecks
// captures fetched at random to check it (an archive caught lying is
// distrusted: its captures are fetched); any other is fetched once per
// digest (bounded by MaxCapture and MaxFetches), its comments verified
// with the key's public half, and what it held cached by digest in
// StateDir so a rerun fetches nothing again. Local sources (WARCSource,
// DirSource) are read once while listing: each page's digest is computed
// from its bytes (the digest a file claims is never used; a page of
// MaxCapture bytes or more is scanned, cut, as recover reads it), so
// pages the history records are not scanned. Without
// a history naming a generation, the live root page tells the newest
// (unless NoLive). It then tallies, per generation, segment and stripe, the
// distinct blocks each source holds and the sources combined (recover
// combines them), finds the newest coherent restore point (as recover
// chooses it: a generation whose verified manifest is archived and whose
// data segments all have k distinct blocks in every stripe), and runs the
// capture model (package odds) for the newest generation.
//
// The report is returned with a nil error whenever the audit ran, even if
// nothing is recoverable (see Report.RestorePoint); errors are for
// bad options, a state directory that cannot be opened, or a cancelled
// ctx. Sources that cannot be read are reported in Report.Sources.
func Run(ctx context.Context, o Options) (*Report, error) {
	r, err := audit(ctx, o)
	if err != nil {
		return nil, err
	}
	return r.rep, nil
}

// audit runs Status's steps and returns the finished run, whose captures
// say what each one holds (capture requests need which blocks, not only
// how many).
func audit(ctx context.Context, o Options) (*statusRun, error) {
	r, err := newStatusRun(o)
	if err != nil {
		return nil, err
	}
	defer r.cache.close()
	if err := r.loadHistory(ctx); err != nil {
		return nil, err
	}
	if err := r.list(ctx); err != nil {
		return nil, err
	}
	if err := r.resolve(ctx); err != nil {
		return nil, err
	}
	r.live(ctx)
	r.conclude()
	return r, nil
}

// statusRun is one Status run.
type statusRun struct {
	o     Options
	site  *url.URL
	v     *keys.Verifier
	cache *statusCache
	rep   *Report
	hist  *statusHistory
	// firstServed is, per canonical page, its first recorded version's
	// time (since).
	firstServed map[string]time.Time
	srcs        []source.Source
	caps        []*statusCapture
	// manifests are the verified manifests by generation, from the
	// history and from captures.
	manifests map[manifest.ID]*statusManifest
	// layouts describe every segment version seen.
	layouts map[manifest.SegmentKey]statusLayout
	// streamed are the scans of captures read while listing a Streamer
	// (local WARC files), by capture key.
	streamed map[string]*statusScan
	// streamedBytes is what streamed holds (heldBytes), at most
	// maxStreamedBytes.
	streamedBytes int64
	// distrusted marks the sources whose listed digests failed a spot
	// check: none of their captures is credited by the history.
	distrusted []bool
	// fetches counts the requests sent for captures of unknown contents
	// (bounded by MaxFetches).
	fetches int
	// foreign counts the manifests (history) and comments (scans) signed
	// by another key.
	foreign int
	// links are the links between the pages known, from the archived
	// pages read: what depths walks.
	links *statusLinks
	// firstLater is the time of the first generation seen that was made
	// after Now (left out of an audit as of a past time), zero if none.
	firstLater time.Time
}

// statusManifest is one verified manifest and where it was seen.
type statusManifest struct {
	m        *manifest.Signed
	archived int // captures that hold it (counted by judge)
}

// statusCapture is one listed capture while Status runs.
type statusCapture struct {
	c      source.Capture
	src    int
	key    string // cache and dedup key: the digest, else source and locator
	length int64  // the stored length the listing gives, 0 if unknown
	how    string
	held   *statusHeld
	// spotFailed marks a capture the history credited whose source's
	// spot-check fetches all failed (see unreachable).
	spotFailed bool
}

// statusHeld is what a capture holds.
type statusHeld struct {
	manifests []manifest.ID
	shards    []heldShard
	rejected  int
	foreign   int // of which signed by another key
	// minBytes is, for what the history records, the shard bytes of the
	// blocks named: encrypted, they cannot be stored in fewer bytes.
	minBytes int64
}

type heldShard struct {
	seg    manifest.SegmentKey
	stripe uint32
	shard  uint16
}

// newStatusRun checks the options and opens the key and the cache.
func newStatusRun(o Options) (*statusRun, error) {
	site, err := url.Parse(o.SiteURL)
	if err != nil || (site.Scheme != "http" && site.Scheme != "https") || site.Host == "" {
		return nil, fmt.Errorf("site URL %q is not an absolute http(s) URL", o.SiteURL)
	}
	if site.Path == "" {
		site.Path = "/"
	}
	switch {
	case len(o.Sources) == 0:
		return nil, errors.New("status needs at least one source")
	case len(o.Sources) > MaxSources:
		return nil, fmt.Errorf("%w: %d sources, at most %d", ErrTooManySources, len(o.Sources), MaxSources)
	case o.MaxCapture < 0:
		return nil, errors.New("negative MaxCapture")
	case o.MaxFetches < 0:
		return nil, errors.New("negative MaxFetches")
	case o.SpotChecks < NoSpotChecks:
		return nil, fmt.Errorf("SpotChecks %d: want a count, 0 for the default or NoSpotChecks", o.SpotChecks)
	}
	names := map[string]bool{Combined: true}
	for _, s := range o.Sources {
		if names[s.Name()] {
			return nil, fmt.Errorf("source %q given twice (or named %q)", s.Name(), Combined)
		}
		names[s.Name()] = true
	}
	if o.MaxCapture == 0 {
		o.MaxCapture = source.DefaultMaxCapture
	}
	asOf := !o.Now.IsZero()
	if !asOf {
		o.Now = time.Now()
	}
	if o.MaxFetches == 0 {
		o.MaxFetches = DefaultMaxFetches
	}
	if o.SpotChecks == 0 {
		o.SpotChecks = DefaultSpotChecks
	}
	if o.Model.At == nil {
		o.Model.At = ModelTimes()
	}
	if o.Client == nil && !o.NoLive {
		o.Client = source.NewClient(source.ClientOptions{})
	}
	v, scope, err := statusVerifier(&o)
	if err != nil {
		return nil, err
	}
	cache, err := openStatusCache(o.StateDir, scope)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	r := &statusRun{o: o, site: site, v: v, cache: cache, srcs: o.Sources,
		rep:       &Report{Site: site.String(), Now: o.Now.UTC(), AsOf: asOf},
		manifests: map[manifest.ID]*statusManifest{}, layouts: map[manifest.SegmentKey]statusLayout{}, streamed: map[string]*statusScan{},
		distrusted: make([]bool, len(o.Sources)), links: newStatusLinks()}
	for _, s := range o.Sources {
		r.rep.Sources = append(r.rep.Sources, SourceReport{Name: s.Name()})
	}
	return r, nil
}

// statusVerifier returns the verifier of the one key given, and the
// cache scope it verifies for: the signing key's id (the same for
// owner.key and server.key), or a hash of the passphrase. Cached scans
// list only what verified, so another key must not read them.
func statusVerifier(o *Options) (*keys.Verifier, string, error) {
	given := 0
	for _, k := range [][]byte{o.ServerKey, o.OwnerKey, o.Passphrase} {
		if len(k) > 0 {
			given++
		}
	}
	if given != 1 {
		return nil, "", errors.New("status needs exactly one of the server key, the owner key or the passphrase")
	}
	switch {
	case len(o.ServerKey) > 0:
		s, err := keys.ParseServer(o.ServerKey)
		if err != nil {
			return nil, "", err
		}
		return s.Verifier(), "key:" + keys.FormatKeyID(s.KeyID()), nil
	case len(o.OwnerKey) > 0:
		owner, err := keys.ParseOwner(o.OwnerKey)
		if err != nil {
			return nil, "", err
		}
		return owner.Verifier(), "key:" + keys.FormatKeyID(owner.KeyID()), nil
	}
	op, err := keys.PassphraseOpener(o.Passphrase, nil)
	if err != nil {
		return nil, "", err
	}
	h := sha256.Sum256(append([]byte("lazarus status cache\x00"), o.Passphrase...))
	return op.Verifier, "passphrase:" + hex.EncodeToString(h[:8]), nil
}

// problem adds a problem line, or counts it once problems.MaxLines are listed.
func (r *statusRun) problem(format string, args ...any) {
	problems.Add(&r.rep.Problems, &r.rep.ProblemsOmitted, format, args...)
}

func (r *statusRun) progress(p Progress) {
	if r.o.Progress != nil {
		r.o.Progress(p)
	}
}

// addManifest keeps a verified manifest and the layouts of its
// segments, unless it was made after Now (an audit as of a past time
// judges the generations made by then).
func (r *statusRun) addManifest(m *manifest.Signed) {
	if r.madeLater(m) {
		return
	}
	sm := r.manifests[m.Manifest.Generation]
	if sm == nil {
		sm = &statusManifest{m: m}
		r.manifests[m.Manifest.Generation] = sm
		for _, s := range m.Manifest.Segments {
			k := manifest.SegmentKey{ID: s.ID, Name: s.Name}
			if _, ok := r.layouts[k]; !ok {
				r.layouts[k] = layoutOf(s)
			}
		}
	}
}

// madeLater reports whether a verified manifest was made after Now, and
// notes the first such time (see CauseNoneYet).
func (r *statusRun) madeLater(m *manifest.Signed) bool {
	t := m.Manifest.Time
	if !t.After(r.o.Now) {
		return false
	}
	if r.firstLater.IsZero() || t.Before(r.firstLater) {
		r.firstLater = t
	}
	return true
}

// layoutOf is a manifest segment's layout.
func layoutOf(s manifest.Segment) statusLayout {
	kind := s.Layout(0).Kind
	return statusLayout{ID: s.ID, Name: s.Name, Kind: kind, Generation: s.Generation, Time: s.Time.Unix(), K: s.K, M: s.M, Stripes: s.Stripes}
}

// list lists every source; captures after Now are left out.
func (r *statusRun) list(ctx context.Context) error {
	pages := r.hist.paths()
	r.links.know(r.rootPage())
	for _, p := range pages {
		r.links.know(siteurl.CanonicalPage(p))
	}
	for i, src := range r.srcs {
		sr := &r.rep.Sources[i]
		r.progress(Progress{Phase: "list", Source: src.Name(), Listed: len(r.caps)})
		add := func(c source.Capture, length int64) bool {
			if !c.Time.IsZero() && c.Time.After(r.o.Now) {
				return false
			}
			sr.Captures++
			r.links.know(capturePage(c.URL))
			r.caps = append(r.caps, &statusCapture{c: c, src: i, key: captureCacheKey(c), length: length})
			return true
		}
		var err error
		if st, ok := localStreamer(src, r.o.MaxCapture, r.problem); ok {
			digests := map[string]string{} // by locator, of the captures streamed
			err = st.Stream(ctx, r.site, func(c source.Capture, page []byte) error {
				switch {
				case c.Unreadable != nil:
					r.problem("%s: %v", src.Name(), c.Unreadable)
					return nil
				case c.Original != "": // a revisit: its original's bytes, scanned already
					c.Digest = digests[c.Original]
					add(c, 0)
					return nil
				}
				// Only a digest computed here from the bytes is looked
				// up in the history, whatever the file claims. A page
				// at the bound was cut: its whole bytes are not in hand,
				// so it has no digest (it is known by its locator) and
				// what its first MaxCapture bytes hold is counted.
				c.Digest = ""
				if int64(len(page)) >= r.o.MaxCapture {
					page = page[:r.o.MaxCapture]
				} else {
					c.Digest = history.SHA1.Of(page).String()
				}
				digests[c.Locator] = c.Digest
				if add(c, 0) {
					r.stream(c, page)
				}
				return nil
			})
		} else {
			err = source.ListEvery(ctx, src, r.site, pages, func(c source.Capture, length int64) error {
				add(c, length)
				return nil
			})
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			sr.Error = problems.Clip(err.Error(), problems.MaxLineBytes)
			r.problem("%s: listing: %v", src.Name(), err)
		}
	}
	sort.SliceStable(r.caps, func(i, j int) bool { return r.caps[i].c.Time.Before(r.caps[j].c.Time) })
	// Every page is listed now: the links to pages no one knows go.
	r.links.seal()
	for _, sc := range r.streamed {
		sc.Links = r.links.keep(sc.Links)
	}
	return nil
}

// stream scans a capture a Streamer read while listing, unless the
// history, the cache or an earlier capture already says what it holds:
// reading a local file again per capture would cost more than scanning
// it now. The page's links are noted either way (they tell the pages'
// depth).
func (r *statusRun) stream(c source.Capture, page []byte) {
	key := captureCacheKey(c)
	if r.streamed[key] != nil {
		return
	}
	links := r.noteLinks(c.URL, pageLinks(page, r.pageURL(c.URL)))
	if _, ok := r.hist.held(c.Digest); ok || r.cache.has(key) {
		return // resolve reads the cache entry (and fetches again if it is unusable)
	}
	sc := scanStatus(page, r.v, int64(len(page)) >= r.o.MaxCapture)
	n := sc.heldBytes()
	if r.streamedBytes+n > maxStreamedBytes {
		return // resolve reads the file again, within MaxFetches: a WARC of many distinct records cannot fill memory
	}
	r.streamedBytes += n
	sc.Links = links
	r.streamed[key] = sc
}

// maxStreamedBytes bounds the verified comments Status holds from local
// sources' pages between listing and resolving.
var maxStreamedBytes int64 = 256 << 20

// heldBytes is what a scan holds in memory: its verified comments.
func (sc *statusScan) heldBytes() int64 {
	var n int64
	for _, b := range sc.Raw {
		n += int64(len(b))
	}
	for _, m := range sc.Manifests {
		n += int64(len(m))
	}
	return n
}

// pageURL is a capture URL made absolute against the site.
func (r *statusRun) pageURL(u string) *url.URL {
	ref, err := url.Parse(u)
	if err != nil {
		return r.site
	}
	return r.site.ResolveReference(ref)
}

// captureCacheKey is the key a capture's contents are known by: its
// digest, parsed (the same bytes wherever they are archived, whichever
// spelling), else its captureKey.
func captureCacheKey(c source.Capture) string {
	if d, ok := history.ParseDigest(c.Digest); ok {
		return d.String()
	}
	return source.Key(c)
}
