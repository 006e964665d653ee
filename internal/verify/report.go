package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/problems"
)

// Report says what Verify found on the live site.
type Report struct {
	Site string `json:"site"`
	// Generation is the newest generation found (a verified manifest's,
	// or else the newest signed blocks'), and Time when it was made.
	Generation string    `json:"generation,omitempty"`
	Time       time.Time `json:"time,omitzero"`
	// FromManifest says a verified manifest of the generation was found;
	// false means it is known from its blocks alone.
	FromManifest bool `json:"from_manifest"`
	// Rebuildable says every segment of the generation can be rebuilt from
	// the pages archives would keep, and its manifest is on one of them.
	Rebuildable bool      `json:"rebuildable"`
	Segments    []Segment `json:"segments"`
	// Manifest says where the generation's manifest is.
	Manifest ManifestPlacement `json:"manifest"`
	Crawl    CrawlReport       `json:"crawl"`
	// Excluded lists the pages holding blocks or the manifest of the
	// generation that archives would not reach or keep (at most
	// MaxExcludedPages), by URL.
	Excluded []ExcludedPage `json:"excluded_pages"`
	// Missing lists the pages that should carry blocks or the manifest of
	// the generation, by its placement plan (the listing's carriers, and
	// with VerifyOptions.History the serve history), and do not (at most
	// MaxMissingPages, most blocks first); MissingPages counts them all.
	// Empty when no plan is known (see Plan).
	Missing      []MissingPage `json:"missing_pages"`
	MissingPages int           `json:"missing_pages_count"`
	// Plan says where the placement plan came from ("listing",
	// "manifest", "serve history", joined by " and "), "" if none was
	// available: then Verify cannot tell which pages lost their blocks.
	Plan string `json:"plan,omitempty"`
	// Histories counts the serve histories read (VerifyOptions.History),
	// HistoryPages the pages they record, of any generation. Histories
	// read that leave "serve history" out of Plan record none of this
	// generation's pages on this site: another site's history, or one
	// written before the generation was served.
	Histories    int `json:"histories_read,omitempty"`
	HistoryPages int `json:"history_pages,omitempty"`
	// Archives says, per archive crawler, what robots.txt lets it keep.
	Archives []ArchiveReach `json:"archives"`
	// Warnings are findings that do not make the generation short but
	// matter, such as an archive robots.txt shuts out entirely.
	Warnings []string `json:"warnings,omitempty"`
	// Hygiene has the signal checks of the root page and the carriers
	// sampled.
	Hygiene []HygieneCheck `json:"hygiene"`
	// Encodings says, per Accept-Encoding crawlers send, which content
	// coding the root page and the first carriers sampled are answered in
	// and whether, decoded as recover decodes captures, they carry the
	// same Lazarus blocks. Empty when the signal checks are off.
	Encodings []EncodingCheck `json:"encodings"`
	// Restore is the trial restore, done with the owner key or passphrase
	// only.
	Restore *TrialRestore `json:"trial_restore,omitempty"`
	// Rejected counts Lazarus comments that were damaged or not signed by
	// the key; Foreign of them were signed by another key, Unsigned not
	// at all.
	Rejected int `json:"rejected"`
	Foreign  int `json:"foreign,omitempty"`
	Unsigned int `json:"unsigned,omitempty"`
	// Problems are other findings, the first problems.MaxLines of them;
	// ProblemsOmitted counts the rest.
	Problems        []string `json:"problems,omitempty"`
	ProblemsOmitted int      `json:"problems_omitted,omitempty"`
}

// MaxExcludedPages bounds VerifyReport.Excluded.
const MaxExcludedPages = 1000

// maxShortStripes bounds VerifySegment.Short.
const maxShortStripes = 16

// Segment is one segment of the newest generation.
type Segment struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`       // "data" or "listing"
	Generation string `json:"generation"` // the generation that produced this version
	K          int    `json:"k"`
	M          int    `json:"m"`
	Stripes    int    `json:"stripes"`
	// Rebuildable says every stripe has k blocks on pages archives would
	// keep and the rebuilt segment matches its id.
	Rebuildable bool `json:"rebuildable"`
	// MinReachable is the fewest blocks of one stripe on pages archives
	// would keep; MinReachable − K is the margin.
	MinReachable int `json:"min_reachable"`
	// Short lists the first stripes with fewer than k such blocks;
	// ShortStripes counts them all.
	Short        []ShortStripe `json:"short,omitempty"`
	ShortStripes int           `json:"short_stripes"`
	// Detail says why a segment whose stripes all have k blocks still
	// cannot be rebuilt (blocks that do not rebuild its id).
	Detail string `json:"detail,omitempty"`
}

// ShortStripe is a stripe with fewer than k reachable blocks.
type ShortStripe struct {
	Stripe    int `json:"stripe"`
	Reachable int `json:"reachable"` // distinct blocks on pages archives would keep
	Need      int `json:"need"`      // k
	// Elsewhere counts further distinct blocks found only on pages
	// archives would not keep (robots.txt, noarchive, truncated,
	// unlinked).
	Elsewhere int `json:"elsewhere"`
}

// why says how a segment falls short, naming its stripes.
func (s Segment) why() string {
	if len(s.Short) == 0 {
		return fmt.Sprintf("segment %s: %s", s.Name, s.Detail)
	}
	var parts []string
	for i, st := range s.Short {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("stripe %d: %d of %s reachable (%d short)", st.Stripe, st.Reachable, humane.Count(st.Need, "block"), st.Need-st.Reachable))
	}
	msg := fmt.Sprintf("segment %s %s", s.Name, strings.Join(parts, ", "))
	if more := s.ShortStripes - len(parts); more > 0 {
		msg += ", and " + humane.Count(more, "more short stripe", "more short stripes")
	}
	return msg
}

// ManifestPlacement says where the generation's manifest is: it belongs
// on the root page and the pages one link away. Without it on at least
// one page archives would keep (Kept), recovery cannot know the
// generation's segments, and Verify is short.
type ManifestPlacement struct {
	Root        bool `json:"root"`          // on the root page, where archives keep it
	OneHop      int  `json:"one_hop"`       // one-hop pages archives would keep that carry it
	OneHopPages int  `json:"one_hop_pages"` // one-hop HTML pages crawled
	Kept        int  `json:"kept"`          // pages archives would keep that carry it, at any depth
}

// CrawlReport says what the crawl fetched.
type CrawlReport struct {
	Requests int `json:"requests"` // pages requested (robots.txt aside)
	// Pages counts the distinct HTML pages fetched and read: those whose
	// Content-Type recover's listing of archived captures takes (each
	// counted once, see Aliases). Pages of any other type, or none, are
	// counted in NotHTML instead, never here.
	Pages int   `json:"pages"`
	Bytes int64 `json:"bytes"` // bytes of pages read, HTML or not
	// Carriers counts the pages archives would keep that hold blocks of
	// the generation.
	Carriers int `json:"carriers"`
	// Queries counts the distinct links with a query string not followed
	// (see VerifyOptions.SkipQuery).
	Queries int `json:"queries_skipped"`
	// NotHTML counts the answers 200 whose Content-Type is not text/html
	// or application/xhtml+xml, or is missing: recover's listing skips
	// them, so they are not among Pages (those read are among Excluded if
	// they carry blocks).
	NotHTML int `json:"not_html"`
	// Failed lists the first pages that could not be fetched (HTTP errors,
	// broken links); Failures counts them all.
	Failed   []string `json:"failed,omitempty"`
	Failures int      `json:"failures"`
	// Limit says why the crawl stopped before its end, if it did: blocks
	// on pages not fetched are not counted.
	Limit string `json:"limit,omitempty"`
	// Robots says why robots.txt could not be read, if it could not.
	Robots string `json:"robots,omitempty"`
	// Unlinked counts the pages read outside the crawl: files of
	// VerifyOptions.SiteDir and carriers the plan names that no link
	// reaches.
	Unlinked int `json:"unlinked_pages_read"`
	// Aliases counts the pages fetched again under a second URL: a
	// directory's index file ("/index.html" and "/"), counted once in
	// Pages and Carriers.
	Aliases int `json:"aliases"`
	// DurationSeconds is how long the crawl took.
	DurationSeconds float64 `json:"duration_seconds"`
}

func (c *CrawlReport) fill(r *crawlResult) {
	c.Requests, c.Pages, c.Bytes, c.Queries, c.NotHTML, c.Aliases = r.requests, r.pages, r.bytes, r.queries, r.notHTML, r.aliases
	c.Failed, c.Failures, c.Limit, c.Robots = r.failed, r.failures, r.limit, r.robots
}

// ExcludedPage is a page holding blocks or the manifest of the generation
// that archives would not reach or keep.
type ExcludedPage struct {
	URL string `json:"url"`
	// Aliases are its other URLs read (see CrawlReport.Aliases).
	Aliases []string `json:"aliases,omitempty"`
	// Reason is why: "robots.txt disallows it for ia_archiver,
	// archive.org_bot, CCBot" (for every archive crawler: see
	// ArchiveReach), "noarchive",
	// "noindex", "unlinked: no link from the root page reaches it",
	// "truncated: blocks end past where archives cut the page" (see
	// VerifyOptions.TruncateAt), or one about its Content-Type ("no
	// Content-Type: archives list it as unknown; recover's listing skips
	// it", "Content-Type text/plain: …").
	Reason string `json:"reason"`
	// Blocks counts the generation's blocks on it archives would not keep;
	// Only of them are on no page archives would keep.
	Blocks   int  `json:"blocks"`
	Only     int  `json:"only_here"`
	Manifest bool `json:"manifest,omitempty"` // it carries the generation's manifest
}

// HygieneCheck is what repeated and conditional GETs of one page showed.
// Archives trust a page's signals when two GETs give the same bytes and
// validators and a conditional GET is answered 304; wrong "changed"
// signals cost more trust than missing ones.
type HygieneCheck struct {
	URL          string   `json:"url"`
	ETag         string   `json:"etag,omitempty"`
	LastModified string   `json:"last_modified,omitempty"`
	Problems     []string `json:"problems,omitempty"` // empty when every check passed
}

// TrialRestore is the outcome of restoring the generation into a
// temporary directory and comparing each file with the listing.
type TrialRestore struct {
	Segments int   `json:"segments"` // segments restored
	Files    int   `json:"files"`    // entries compared
	Bytes    int64 `json:"bytes"`    // bytes of regular files compared
	// Mismatches lists what differs from the listing (at most
	// problems.MaxLines); any means the backup cannot be trusted.
	Mismatches []string `json:"mismatches,omitempty"`
	// Skipped says what could not be restored or compared, and why
	// (short segments, no listing).
	Skipped []string `json:"skipped,omitempty"`
}

// problem adds a problem line, or counts it once problems.MaxLines are listed.
func (r *Report) problem(format string, args ...any) {
	problems.Add(&r.Problems, &r.ProblemsOmitted, format, args...)
}

// MaxMissingPages bounds VerifyReport.Missing.
const MaxMissingPages = 100

// MissingPage is a page the placement plan puts blocks or the manifest of
// the generation on that do not show there: someone or something removed
// them (a deploy that overwrote the pages, an editor), or the page is
// gone.
type MissingPage struct {
	URL string `json:"url"`
	// Blocks counts the planned blocks not on the page; Planned all it
	// should carry.
	Blocks  int `json:"blocks"`
	Planned int `json:"planned"`
	// Manifest says the page should carry the manifest and does not.
	Manifest bool `json:"manifest,omitempty"`
	// Fetched is false when the page could not be read at all (Error
	// says why).
	Fetched bool   `json:"fetched"`
	Error   string `json:"error,omitempty"`
}

// ArchiveReach is what one archive's crawler may keep of the site by
// robots.txt.
type ArchiveReach struct {
	Archive string   `json:"archive"` // "Internet Archive", "Common Crawl"
	Agents  []string `json:"agents"`  // the user agents whose robots.txt rules it heeds
	// Pages counts the pages it reaches by links and may fetch; Carriers
	// those of them carrying blocks of the generation.
	Pages    int `json:"pages"`
	Carriers int `json:"carriers"`
	// Disallowed counts the pages read that robots.txt keeps from it
	// while another archive may keep them; Examples names the first few,
	// with the rule ("/a.html: disallowed for ia_archiver; CCBot may fetch
	// it").
	Disallowed int      `json:"disallowed"`
	Examples   []string `json:"examples,omitempty"`
}
