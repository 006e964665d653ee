package status

import (
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// Options configure Status. Exactly one of ServerKey, OwnerKey and
// Passphrase is needed: signatures are checked with the public half,
// nothing is decrypted.
type Options struct {
	// SiteURL is the site's public URL (absolute http or https); required.
	SiteURL string
	// Sources are the archives whose captures are audited, as for Recover
	// (same listing, fetching and politeness).
	Sources []source.Source
	// ServerKey is the contents of server.key; it suffices.
	ServerKey []byte
	// OwnerKey is the contents of owner.key; only its public half is used.
	OwnerKey []byte
	// Passphrase is for passphrase-mode sites.
	Passphrase []byte
	// History are the site's serve histories (inject's STATE/history,
	// Caddy's lazarus/NAME/history): a capture whose digest one of them
	// records is known without fetching it. Defaults to none.
	History []history.Store
	// StateDir caches what fetched captures held, so a rerun fetches
	// nothing again: by digest when the bytes fetched had the listed
	// digest (then for every source listing it), else by source and
	// digest (or locator, for captures without one). Empty means no
	// cache. It is created if missing.
	StateDir string
	// Now is the time of the audit; captures after it are ignored.
	// Defaults to time.Now(); a Now given is reported as
	// Report.AsOf (the report says "as of" it, not "now").
	Now time.Time
	// Model tunes the capture model.
	Model ModelOptions
	// MaxCapture bounds one fetched capture's bytes; defaults to
	// DefaultMaxCapture.
	MaxCapture int64
	// MaxFetches bounds the requests sent for captures whose contents are
	// not known (no history record, no cache entry); the captures that
	// matter are fetched first (the root page's, then the carriers',
	// newest first) and the rest are reported unfetched
	// (SourceReport.Unfetched). Defaults to DefaultMaxFetches.
	MaxFetches int
	// SpotChecks is how many captures the history credits are fetched,
	// per source and per generation the verdict depends on (the newest
	// and the restore point), chosen at random, to check the archive's
	// listed digest and the history against the bytes; a source that
	// fails is not trusted for the rest of the run (its captures are
	// fetched). Beyond the spot checks, history-known captures are
	// counted on the archive's word. 0 defaults to DefaultSpotChecks;
	// NoSpotChecks trusts the listings (the fewest requests).
	SpotChecks int
	// NoLive skips the live site: by default, when no serve history names
	// a generation, Status fetches the site's root page once to learn
	// the generation it serves now (a newer one than any archived is the
	// newest, and not recoverable). Defaults to false.
	NoLive bool
	// Client fetches the live root page; defaults to NewClient with
	// default options.
	Client source.Doer
	// Progress, if set, is called as sources are listed and captures
	// fetched.
	Progress func(Progress)
}

// DefaultMaxFetches is Options.MaxFetches's default: at the
// Internet Archive's 24 requests a minute, under an hour and a half.
const DefaultMaxFetches = 2000

// DefaultSpotChecks is Options.SpotChecks's default.
const DefaultSpotChecks = 1

// NoSpotChecks, as Options.SpotChecks, trusts the archives'
// listed digests without fetching any capture the history knows.
const NoSpotChecks = -1

// Progress is a snapshot of a running Status.
type Progress struct {
	Phase   string // "list", "fetch" or "assess"
	Source  string // the source being listed, in phase "list"
	Listed  int    // captures listed so far
	Known   int    // of which known from the history or the cache
	Fetched int    // captures fetched so far
	ToFetch int    // captures that need fetching, in phase "fetch"
}

// Report is what Status found: what the archives hold of every
// generation seen, the newest restore point they allow, and how likely
// the newest generation is to be recoverable now and later.
//
// Its JSON form is stable: durations (time.Duration in Go) are float
// seconds in JSON, in fields whose names end in "_seconds"; times are
// RFC 3339.
type Report struct {
	Site string    `json:"site"`
	Now  time.Time `json:"now"`
	// AsOf reports that Now was given (Options.Now, the CLI's
	// --as-of): the audit judges the archives as they stood then, not
	// when it ran.
	AsOf bool `json:"as_of,omitempty"`
	// Sources says what each source listed and what had to be fetched.
	Sources []SourceReport `json:"sources"`
	// History says what the serve histories held.
	History History `json:"history"`
	// Captures are every listed capture of the site (not collapsed by
	// digest), oldest first, and what each holds.
	Captures []Capture `json:"captures"`
	// Generations are the generations seen (verified manifests, from the
	// history or from captures), newest first.
	Generations []Generation `json:"generations"`
	// Newest is the newest generation seen, "" if none.
	Newest string `json:"newest,omitempty"`
	// Live is the generation the live site's root page serves, when
	// Status fetched it (no history named a generation) and it is newer
	// than every archived manifest; "" otherwise.
	Live string `json:"live,omitempty"`
	// NewestUnconfirmed is true when neither a serve history nor the live
	// site told which generation is current (no history, and the live
	// root was skipped or could not be read): Newest is then only the
	// newest the archives hold, and a newer one may exist.
	NewestUnconfirmed bool `json:"newest_unconfirmed,omitempty"`
	// RestorePoint is the newest generation recoverable from the archives
	// combined now (seed 000's coherent restore point), nil if none.
	RestorePoint *RestorePoint `json:"restore_point,omitempty"`
	// Cause, when no generation is recoverable for a reason other than
	// what the archives hold (the wrong key, sources that could not be
	// read), says so; nil otherwise. The CLI's final error, the HTML page
	// and the Caddy module's audit all take it from here.
	Cause *Cause `json:"cause,omitempty"`
	// Assessment is the recoverability model's estimate for the newest
	// generation, nil if there is none.
	Assessment *Assessment `json:"assessment,omitempty"`
	// Timelines are, per generation, data segment and source (and
	// "combined"), the distinct archived blocks over time against k.
	Timelines []Timeline `json:"timelines,omitempty"`
	// Pages are the site's pages seen in listings or the history, with
	// their capture times per source: the per-page capture timeline.
	Pages []Page `json:"pages,omitempty"`
	// Notes are plain sentences the reader should know (assumptions, what
	// was not counted).
	Notes []string `json:"notes,omitempty"`
	// Problems are the first problems.MaxLines problems met (forged or damaged
	// comments, failed fetches, unreadable sources).
	Problems        []string `json:"problems,omitempty"`
	ProblemsOmitted int      `json:"problems_omitted,omitempty"`
}

// Cause is why nothing is recoverable when the archives are not to
// blame (Report.Cause).
type Cause struct {
	// Kind is CauseWrongKey, CauseSourcesFailed or CauseNoneYet.
	Kind string `json:"kind"`
	// Message says it in a sentence, naming the sources and their errors
	// or the count of Lazarus comments signed by another key.
	Message string `json:"message"`
}

// The kinds of Cause.
const (
	// CauseWrongKey: Lazarus data was found, but none of it is signed by
	// the key given (another site's data, or the wrong key).
	CauseWrongKey = "wrong_key"
	// CauseSourcesFailed: every source failed to list the site, so the
	// audit says nothing about what the archives hold.
	CauseSourcesFailed = "sources_failed"
	// CauseNoneYet: the audit's time (Options.Now, --as-of) is
	// before the first generation Status learned of was made: none
	// existed yet.
	CauseNoneYet = "none_yet"
)

// Combined is the source name of the archives taken together, as
// recover combines them.
const Combined = "combined"

// SourceReport is one source's part of the audit.
type SourceReport struct {
	Name     string `json:"name"`
	Captures int    `json:"captures"` // captures listed
	Known    int    `json:"known"`    // known from the history by digest: not fetched
	Cached   int    `json:"cached"`   // read from the state directory's cache: not fetched
	Fetched  int    `json:"fetched"`  // fetched from the source in this run
	Failed   int    `json:"failed"`   // could not be fetched
	// SpotChecked counts the history-known captures fetched to check the
	// listing (Options.SpotChecks).
	SpotChecked int `json:"spot_checked"`
	// Distrusted reports that a spot check failed: the source's listed
	// digests were not trusted, its captures were fetched.
	Distrusted bool `json:"distrusted,omitempty"`
	// Unfetched counts the captures of unknown contents left unfetched at
	// Options.MaxFetches: what they hold is not counted.
	Unfetched int    `json:"unfetched"`
	Error     string `json:"error,omitempty"` // why it could not be listed, else the first fetch error
}

// History summarizes the loaded serve histories.
type History struct {
	Stores    int  `json:"stores"`
	Records   int  `json:"records"`   // page versions recorded
	Manifests int  `json:"manifests"` // manifests that verify with the key
	Skipped   int  `json:"skipped"`   // damaged entries left out
	Truncated bool `json:"truncated,omitempty"`
}

// How a capture's contents became known (Capture.How).
const (
	HowHistory   = "history"   // its digest is in the serve history: not fetched
	HowFetched   = "fetched"   // fetched and scanned in this run
	HowCache     = "cache"     // scanned in an earlier run (the state directory)
	HowTruncated = "truncated" // fetched, but cut short: blocks past the cut are lost
	HowFailed    = "failed"    // could not be fetched
	HowChecked   = "checked"   // known from the history, and fetched by a spot check that agreed
	HowUnfetched = "unfetched" // contents unknown: left at the MaxFetches bound
	HowNone      = "none"      // not needed: another capture with the same digest was scanned
)

// Capture is one listed capture and what it holds.
type Capture struct {
	Source string    `json:"source"`
	URL    string    `json:"url"`
	Time   time.Time `json:"time,omitzero"`
	Digest string    `json:"digest,omitempty"`
	How    string    `json:"how"`
	// Manifest is the generation whose verified manifest it carries, "".
	Manifest string `json:"manifest,omitempty"`
	// Generations are the generations whose blocks it carries.
	Generations []string `json:"generations,omitempty"`
	Blocks      int      `json:"blocks"`             // verified blocks
	Rejected    int      `json:"rejected,omitempty"` // damaged, forged or unsigned comments
}

// Generation is one generation and what the archives hold of it.
type Generation struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	// Segments are its segments as its manifest names them: data segments,
	// then the listing segment if any. A segment unchanged since an older
	// generation is that generation's version (Version), whose blocks
	// count for both.
	Segments []Segment `json:"segments"`
	// Recoverable: every data segment has every stripe with at least k
	// distinct blocks in the archives combined.
	Recoverable bool `json:"recoverable"`
	// ManifestArchived reports that its verified manifest is in at least
	// one archived capture (recover needs it for a coherent restore
	// point).
	ManifestArchived bool `json:"manifest_archived"`
	// SegmentsRebuildable: every data segment has every stripe with at
	// least k distinct blocks combined, whether or not the manifest is
	// archived. Without the manifest recovery still restores the
	// segments, without the generation's listing check, as a partial
	// restore.
	SegmentsRebuildable bool `json:"segments_rebuildable"`
	// Short says which data segments fall short and by how many blocks;
	// when the manifest is in no archived capture (ManifestArchived
	// false), its last entry says so.
	Short []string `json:"short,omitempty"`
	// HeldBy are the sources that hold it recoverably each on its own,
	// and since when: "confirmed in wayback", "confirmed in wayback and
	// commoncrawl". Recoverable may hold with none of them (the sources
	// combined).
	HeldBy []SourceHold `json:"held_by,omitempty"`
}

// Segment is one segment of a generation.
type Segment struct {
	Name    string `json:"name"`
	Listing bool   `json:"listing,omitempty"` // the listing segment (not needed for the files)
	Version string `json:"version"`           // the generation that produced this segment version
	ID      string `json:"id"`                // SHA-256 of the segment version's ciphertext
	K       int    `json:"k"`
	M       int    `json:"m"`
	Stripes int    `json:"stripes"`
	// Complete counts the stripes with at least K distinct blocks combined.
	Complete    int      `json:"complete"`
	Recoverable bool     `json:"recoverable"`
	PerStripe   []Stripe `json:"per_stripe"`
}

// Stripe is one stripe: distinct archived blocks per source and
// combined, against the K needed.
type Stripe struct {
	Index    int            `json:"index"`
	Need     int            `json:"need"`
	Have     map[string]int `json:"have"` // by source name; sources with none are left out
	Combined int            `json:"combined"`
}

// RestorePoint is the newest generation the archives can restore.
type RestorePoint struct {
	Generation string        `json:"generation"`
	Time       time.Time     `json:"time"`
	Age        time.Duration `json:"age_seconds"` // Now − Time; JSON: float seconds
	// Newest reports whether it is the newest generation seen.
	Newest bool `json:"newest"`
}

// Assessment is the capture model's forecast for the newest generation
// (package odds, fitted to the archives' history): lower bounds on the
// probability that the archives hold it within each horizon, computed,
// not sampled.
type Assessment struct {
	Generation string      `json:"generation"`
	Target     float64     `json:"target"` // the P_rec whose reaching time is reported
	Views      []ModelView `json:"views"`
	Pages      int         `json:"pages"`    // pages modelled (carriers and others, for the depth pools)
	Carriers   int         `json:"carriers"` // of which carry blocks of the generation
	// Fixed names the sources that are files (WARC files, mirror
	// directories): what they hold counts, but they capture nothing
	// more, so the forecast's future comes from the other sources alone.
	Fixed []string `json:"fixed_sources,omitempty"`
	// Archives name the sources whose future captures the forecast
	// counts, each by its own fitted model.
	Archives []string `json:"archives,omitempty"`
	// Survives is how many carrier pages may go uncaptured, whichever
	// they are, with the archives still holding enough of the generation
	// (the blocks already archived count); the number of carriers when
	// the archives hold enough already, −1 when even every carrier would
	// not do. Certain, model-free: said before any probability.
	Survives int `json:"survives_loss_of"`
	Pooled   int `json:"pooled"` // page rates borrowed from their depth pool
	// DepthKnown counts the pages whose link depth is known (Page);
	// the others are modelled at the deepest level (a lower bound).
	DepthKnown int `json:"depth_known"`
	// Capture is, for each modelled page (named as inject names pages),
	// the probability that some source captures it within CaptureHorizon,
	// from the model's rates: what `lazarus inject --rates` plans the next
	// generation with (ReadStatusReport).
	Capture map[string]float64 `json:"capture,omitempty"`
	// Evidence is what the model's rates rest on; nil if it could not
	// run.
	Evidence *Evidence `json:"evidence,omitempty"`
	// PerArchive is each source's own chance of holding the generation
	// without the others, at the view's times.
	PerArchive []ArchiveOutlook `json:"per_archive,omitempty"`
	// TwoArchives is the chance that at least two sources each hold the
	// generation on their own, at the view's times (a lower bound: the
	// model takes archives as independent); nil with fewer than two
	// sources.
	TwoArchives []Probability `json:"two_archives,omitempty"`
	// Error says why the model could not run, if it could not.
	Error string `json:"error,omitempty"`
	// Reason is set when the model was not run because its input is
	// unknown, not because it failed: AssessCarriersUnknown. Error then
	// says why in a sentence.
	Reason string `json:"reason,omitempty"`
}

// AssessCarriersUnknown is Assessment.Reason when the newest
// generation is known only from the live site's root page (no serve
// history records it): which pages carry its blocks is unknown, so
// there is no outlook to model.
const AssessCarriersUnknown = "carriers_unknown"

// ModelView is one view of the model.
type ModelView struct {
	Name string `json:"name"` // ModelViewName
	// At is P_rec of the generation (every data segment) at each reported
	// time.
	At []Probability `json:"at"`
	// Exact reports that the probabilities are exact, not Monte Carlo.
	Exact bool `json:"exact"`
	// Reached reports whether Target is reached within the model's
	// horizon ("never" otherwise), and ReachIn how long from Now that
	// takes (0 if it already is).
	Reached  bool             `json:"reached"`
	ReachIn  time.Duration    `json:"reach_in_seconds"` // JSON: float seconds
	Segments []SegmentOutlook `json:"segments,omitempty"`
}

// Probability is P_rec at a time after Now.
type Probability struct {
	After  time.Duration `json:"after_seconds"` // JSON: float seconds
	P      float64       `json:"p"`
	StdErr float64       `json:"stderr"` // 0 when exact
}

// SegmentOutlook is one segment's P_rec at the reported times.
type SegmentOutlook struct {
	Name    string        `json:"name"`
	Listing bool          `json:"listing,omitempty"`
	At      []Probability `json:"at"`
	Reached bool          `json:"reached"`
	ReachIn time.Duration `json:"reach_in_seconds"` // JSON: float seconds
	// Weakest are the indexes of its least likely stripes (at most 5).
	Weakest []int `json:"weakest,omitempty"`
}

// Timeline is the distinct blocks of one segment version held by
// one source (or Combined) over time: a point at every capture
// that added blocks.
type Timeline struct {
	Generation string          `json:"generation"`
	Segment    string          `json:"segment"`
	Source     string          `json:"source"`
	K          int             `json:"k"`
	Stripes    int             `json:"stripes"`
	Points     []TimelinePoint `json:"points"`
}

// TimelinePoint is the state after the captures up to Time.
type TimelinePoint struct {
	Time time.Time `json:"time"`
	// Blocks counts distinct blocks over all stripes (need K × Stripes).
	Blocks int `json:"blocks"`
	// Weakest is the fewest distinct blocks of any stripe (need K).
	Weakest int `json:"weakest"`
}

// Page is one page of the site and its captures per source.
type Page struct {
	URL string `json:"url"`
	// Depth is the link hops from the root page (0) by a breadth-first
	// walk of the links in the archived pages Status read, or
	// DepthUnknown (-1) when they do not reach the page.
	Depth int `json:"depth"`
	// Carrier reports whether the page carries blocks of the newest
	// generation (by the history or a scanned capture).
	Carrier  bool                   `json:"carrier"`
	Captures map[string][]time.Time `json:"captures,omitempty"`
}

// DepthUnknown is Page.Depth when the archived pages' links do not
// tell the page's depth.
const DepthUnknown = -1

// Outcome is an audit's verdict: what the archives allow restoring
// now.
type Outcome int

// The outcomes, from best to worst.
const (
	// NewestRecoverable: the newest generation seen is recoverable from
	// the archives now.
	NewestRecoverable Outcome = iota
	// OlderRecoverable: only an older generation is
	// (Report.RestorePoint names it).
	OlderRecoverable
	// NothingRecoverable: no generation is.
	NothingRecoverable
)

// Outcome returns the report's verdict.
func (r *Report) Outcome() Outcome {
	switch {
	case r.RestorePoint == nil:
		return NothingRecoverable
	case r.RestorePoint.Newest:
		return NewestRecoverable
	default:
		return OlderRecoverable
	}
}
