package injector

// Report reports what a run did (or, with DryRun, would do).
type Report struct {
	Generation string          `json:"generation"`         // the current generation id
	Previous   string          `json:"previous,omitempty"` // the generation it replaced, if new
	New        bool            `json:"new"`                // a new generation was made
	Completed  bool            `json:"completed"`          // unchanged, and this run completed outputs an interrupted run left unwritten (see Run)
	DryRun     bool            `json:"dry_run"`
	Segments   []SegmentReport `json:"segments"`
	Pages      []PageReport    `json:"pages"`         // carrier pages and pages whose comments changed
	Written    int             `json:"pages_written"` // files written: pages, snippets, the sitemap, bundle files
	Warnings   []string        `json:"warnings,omitempty"`
	Carriers   int             `json:"carriers"` // carrier pages available
	// Recoverability is the planner's figure: the probability that the
	// archives keep the manifest and enough blocks of every stripe if they
	// kept each page independently with its capture probability
	// (Options.Capture, else 0.5). Archives crawl in sweeps, so it is a
	// ceiling, not a forecast: Outlook is. Target is Options.Target (0:
	// planned by redundancy).
	Recoverability float64 `json:"recoverability"`
	Target         float64 `json:"target,omitempty"`
	// Requests is what the plan assumed of the capture requests that
	// follow the run (Options.Requests): Recoverability is then the
	// model's probability within their horizon. Nil when none were
	// counted on.
	Requests *Requests `json:"requests,omitempty"`
	// WithRequests, for a target plan that counts on no capture
	// requests, is what counting on them would change (see
	// RequestsAlternative).
	WithRequests *RequestsAlternative `json:"with_requests,omitempty"`
	// Outlook is what is known of the generation's chances and what the
	// capture model expects, by horizon.
	Outlook *Outlook `json:"outlook,omitempty"`
	// FullWidth, with Options.Fill, means every stripe of every data
	// segment spans every carrier page (or the format's 256 blocks): the
	// most redundancy the pages hold, whatever their room, since a page
	// never carries two blocks of one stripe. A larger page budget adds
	// nothing to such a plan; more pages would.
	FullWidth bool `json:"full_width,omitempty"`
	// Kept lists the earlier generations kept beside the current one,
	// newest first, with how many of their blocks the pages still carry
	// (room allowing).
	Kept []KeptGeneration `json:"kept_generations,omitempty"`
	// Shrunk lists the segments found empty or shrunk (see ShrunkSegment),
	// each also a warning; empty with Options.AcceptShrink.
	Shrunk       []ShrunkSegment `json:"shrunk,omitempty"`
	CaptureRates int             `json:"capture_rates,omitempty"` // carrier pages with a capture probability of their own (Options.Capture)
	Excluded     []string        `json:"excluded_pages"`          // pages that cannot carry blocks, with the reason
	// UnknownGeneration is a generation the outputs already carry (the
	// manifest on the site's root page, or a bundle's current generation)
	// when the state directory knows none: an earlier run kept its state
	// elsewhere, or lost it (a deploy from a fresh checkout). A warning
	// says so. "" otherwise.
	UnknownGeneration string `json:"unknown_generation,omitempty"`
	// Sitemap is the URL of the sitemap.xml the run keeps (Options.Sitemap),
	// "" when it keeps none (the option off, or the site has its own).
	Sitemap string `json:"sitemap,omitempty"`
	// OutsideSitePath counts the pages of Excluded that links reach only
	// at paths outside the site URL's path (a site served from the
	// host's root given a site URL such as https://example.org/blog/);
	// a warning says so.
	OutsideSitePath int `json:"outside_site_path,omitempty"`
}

// SegmentReport describes one segment of the current generation.
type SegmentReport struct {
	Name       string   `json:"name"`
	Changed    bool     `json:"changed"`    // new content in this run
	Generation string   `json:"generation"` // the generation that produced this version
	Sources    []string `json:"sources,omitempty"`
	Files      int      `json:"files"`
	TarBytes   int64    `json:"tar_bytes"`
	Ciphertext int64    `json:"ciphertext_bytes"`
	K          int      `json:"k"`
	M          int      `json:"m"`
	ShardSize  int      `json:"shard_size"`
	Stripes    int      `json:"stripes"`
}

// PageReport describes one page.
type PageReport struct {
	URL        string `json:"url"`
	Blocks     int    `json:"blocks"`     // blocks of the current generation
	Old        int    `json:"old_blocks"` // blocks of previous generations kept
	Manifest   bool   `json:"manifest"`
	AddedBytes int    `json:"added_bytes"` // bytes of Lazarus comments on the page
	Changed    bool   `json:"changed"`
}

// KeptGeneration is an earlier generation kept on the pages beside the
// current one (make-before-break).
type KeptGeneration struct {
	Generation string `json:"generation"`
	Blocks     int    `json:"blocks"`  // its blocks the state knows
	Carried    int    `json:"carried"` // of which the pages carry (or the current generation does: unchanged segments)
	// Held means it is kept because a segment shrank since (see
	// Report.Shrunk), whatever the rotation would do.
	Held bool `json:"held,omitempty"`
}

// ShrunkSegment is a segment found empty (no file with content: an
// include of an empty directory, a dump that printed nothing) or shrunk
// to less than a tenth of its size in an earlier generation, losing at
// least 64 KiB (a mistyped path, a dump of the wrong database): what a
// mistake looks like. Unless Options.AcceptShrink, that earlier
// generation is held on the pages.
type ShrunkSegment struct {
	Name     string `json:"name"`
	Empty    bool   `json:"empty,omitempty"`
	TarBytes int64  `json:"tar_bytes"` // its size now
	// Generation is the earlier generation it is measured against and
	// held on the pages, with its size there; "" when there is none (a
	// new segment found empty).
	Generation  string `json:"generation,omitempty"`
	WasTarBytes int64  `json:"was_tar_bytes,omitempty"`
}
