package recover

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/problems"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// Report says what a recovery found and rebuilt.
type Report struct {
	Generation string          `json:"generation,omitempty"` // the coherent restore point, if one generation was restored whole
	Segments   []SegmentReport `json:"segments"`
	Captures   int             `json:"captures"`                  // captures listed
	Pages      int             `json:"pages"`                     // pages fetched and scanned
	Blocks     int             `json:"blocks"`                    // good blocks used or redundant
	Rejected   int             `json:"rejected_blocks"`           // damaged, forged or unsigned comments
	Foreign    int             `json:"foreign_blocks,omitempty"`  // of which signed by another key
	Unsigned   int             `json:"unsigned_blocks,omitempty"` // of which unsigned
	// MadeFor is the site URL Generation's manifest names when it is not
	// Options.SiteURL's site (see SameSite): a site recovered where it is
	// now (a new domain, a staging host), its carriers fetched by their
	// paths there. "" when it is that site, or no SiteURL was given.
	MadeFor string `json:"made_for,omitempty"`
	// Sources says what each source listed, and why it could not be read.
	Sources []*SourceReport `json:"sources,omitempty"`
	// Problems are what sources, pages and blocks could not give, and
	// what was restored otherwise than packed (setuid and setgid bits
	// cleared, a mode or time not set, an entry type skipped): the first
	// MaxProblems.
	Problems []string `json:"problems,omitempty"`
	// ProblemsOmitted counts the problems beyond MaxProblems (and beyond
	// codec.MaxPageProblems per page), which are not listed.
	ProblemsOmitted int `json:"problems_omitted,omitempty"`
	// Newer lists generations newer than the restore point that were seen
	// (a verified manifest or signed blocks) but not rebuilt, newest
	// first. Not empty means the restore is a rollback or mixed.
	Newer []GenerationSeen `json:"newer,omitempty"`
	// OtherSites lists the sites named by verified generations that were
	// ignored because they are not Options.SiteURL's while others are
	// (one key may sign several sites). When no generation names
	// SiteURL's site, none is ignored and a problem line names the sites
	// they were made for.
	OtherSites []string `json:"other_sites,omitempty"`
	// Saved is where Save wrote the report.
	Saved string `json:"-"`
	// Provenance lists every capture that contributed blocks or a
	// manifest: where each piece of the rebuilt files came from.
	Provenance []Contribution `json:"provenance,omitempty"`
	// Owners counts the restored entries by the user and group their
	// segments record (by name), and says whether they were given them:
	// as root, where this system has the names; otherwise not, and why.
	// Not restoring an owner is never an error.
	Owners  []bundle.Ownership       `json:"owners,omitempty"`
	ownerAt map[bundle.Ownership]int // Owners' index, Entries zeroed (see addOwners)
}

// addOwners adds a segment's owner counts to the report's, those of
// owners past bundle.MaxOwners under bundle.Uncounted, as each segment's
// extraction counts them: the segments of a hostile manifest, each naming
// its own thousands, neither grow the report nor make merging slow.
func (r *Report) addOwners(segment []bundle.Ownership) {
	if r.ownerAt == nil {
		r.ownerAt = make(map[bundle.Ownership]int, len(r.Owners))
		for i, o := range r.Owners {
			o.Entries = 0
			r.ownerAt[o] = i
		}
	}
	for _, o := range segment {
		k := o
		k.Entries = 0
		i, ok := r.ownerAt[k]
		if !ok && len(r.Owners) >= bundle.MaxOwners {
			k = bundle.Uncounted
			i, ok = r.ownerAt[k]
		}
		if !ok {
			i = len(r.Owners)
			r.ownerAt[k] = i
			r.Owners = append(r.Owners, k)
		}
		r.Owners[i].Entries += o.Entries
	}
}

// SourceReport is what one source gave.
type SourceReport struct {
	Name     string `json:"name"`
	Captures int    `json:"captures"`        // captures listed (or streamed)
	Fetched  int    `json:"fetched"`         // captures fetched and scanned
	Failed   int    `json:"failed"`          // captures that could not be fetched
	Error    string `json:"error,omitempty"` // why it could not be listed or read (wholly, or past Captures); else the first fetch error
}

// source returns the report of src, adding it on first use.
func (r *Report) source(src source.Source) *SourceReport {
	for _, s := range r.Sources {
		if s.Name == src.Name() {
			return s
		}
	}
	s := &SourceReport{Name: src.Name()}
	r.Sources = append(r.Sources, s)
	return s
}

// MaxProblems bounds Report.Problems (and each line is cut at
// problems.MaxLineBytes): a hostile archive or page cannot grow the
// report (or recover's memory) without bound.
const MaxProblems = problems.MaxLines

// problem adds a problem line, or counts it once MaxProblems are listed.
func (r *Report) problem(format string, args ...any) {
	problems.Add(&r.Problems, &r.ProblemsOmitted, format, args...)
}

// credit counts what a scanned page contributed, and what items parked on
// earlier pages contributed once it released them, and returns the
// verified manifests among them.
func (r *Report) credit(pr codec.PageReport) []*manifest.Signed {
	ms := r.contribution(pr)
	for _, rel := range pr.Released {
		ms = append(ms, r.contribution(rel)...)
	}
	return ms
}

// contribution counts one page's blocks, manifests and problems, and
// records where they came from.
func (r *Report) contribution(pr codec.PageReport) []*manifest.Signed {
	from := pr.From
	if pr.Accepted+len(pr.Manifests)+pr.Rejected > 0 {
		r.Provenance = append(r.Provenance, Contribution{Source: from.Source, URL: from.URL, Time: from.Time,
			Blocks: pr.Accepted, Manifests: len(pr.Manifests), Rejected: pr.Rejected})
	}
	r.Blocks += pr.Accepted + pr.Redundant
	r.Rejected += pr.Rejected
	r.Foreign += pr.Foreign
	r.Unsigned += pr.Unsigned
	for _, p := range pr.Problems {
		r.problem("%s: %v", from.URL, p)
	}
	r.ProblemsOmitted += pr.Omitted
	return pr.Manifests
}

// Contribution is what one archived capture contributed.
type Contribution struct {
	Source    string    `json:"source"`
	URL       string    `json:"url"`
	Time      time.Time `json:"time,omitzero"`
	Blocks    int       `json:"blocks"`          // good blocks used
	Manifests int       `json:"manifests"`       // verified manifests
	Rejected  int       `json:"rejected_blocks"` // damaged or forged comments
}

// Save writes the report as JSON to dir/recovery.json, atomically and
// without following a symbolic link at that name. A report that rebuilt
// fewer segments than the one already there never replaces it (a rerun
// into the same directory, an archive gone since): it is written beside
// it as recovery-TIME.json instead. Saved holds the name written.
func (r *Report) Save(dir string) error {
	root, err := rootfile.Open(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return r.save(root)
}

func (r *Report) save(root *os.Root) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	name := ReportFile
	if r.count("rebuilt") < earlierRebuilt(root) {
		name = "recovery-" + time.Now().UTC().Format("20060102T150405Z") + ".json"
	}
	if err := rootfile.WriteAtomic(root, name, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	r.Saved = filepath.Join(root.Name(), name)
	return nil
}

// earlierRebuilt returns how many segments the report already in root
// says were rebuilt (0 if there is none).
func earlierRebuilt(root *os.Root) int {
	raw, err := rootfile.ReadRegular(root, ReportFile, 64<<20)
	if err != nil {
		return 0
	}
	var old Report
	if json.Unmarshal(raw, &old) != nil {
		return 0
	}
	return old.count("rebuilt")
}

// SegmentReport is one segment's outcome.
type SegmentReport struct {
	Name string `json:"name"`
	// Generation is the generation its version comes from: for a segment
	// unchanged since an earlier generation, that one, whose blocks the
	// restored generation (Report.Generation) carries over as its own
	// content.
	Generation string `json:"generation"`
	// Status is "rebuilt"; "short" (blocks missing, or its data refused);
	// "exists" (its files are already in the output directory); or
	// "unwritten" (whole, but writing it failed: see ErrWrite).
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Files  int    `json:"files"`
	// Paths are the top-level names its files were restored to, relative
	// to the output directory.
	Paths []string `json:"paths,omitempty"`
	Bytes int64    `json:"bytes"`
}

// restore chooses what to extract and extracts it, committing what staged
// returns for a target when it was extracted early (see early).
func restore(a *codec.Assembler, manifests []*manifest.Signed, rep *Report, o Options, staged func(target) *codec.Staged) error {
	manifests = append(manifests, rep.credit(a.Settle())...)
	status := a.Status()
	p := choose(manifests, status, &o)
	var rebuilt []target
	for _, t := range p.targets {
		sr := SegmentReport{Name: t.layout.Name, Generation: manifest.ID(t.layout.Generation).String()}
		if t.err != nil {
			sr.Status, sr.Detail = "short", t.err.Error()
		} else {
			res, err := extract(a, t, o, staged)
			sr.Status, sr.Files, sr.Bytes, sr.Paths = "rebuilt", res.Files, res.Bytes, res.Top
			rep.addOwners(res.Owners)
			for _, w := range res.Problems { // restored otherwise than packed: setuid bits cleared, a mode not set
				rep.problem("segment %s: %s", t.layout.Name, w)
			}
			switch {
			case errors.Is(err, bundle.ErrExists):
				sr.Status, sr.Detail = "exists", err.Error()+" (existing files are kept)"
			case failedWriting(err):
				sr.Status, sr.Detail = "unwritten", err.Error()
			case err != nil:
				sr.Status, sr.Detail = "short", err.Error()
			default:
				rebuilt = append(rebuilt, t)
			}
		}
		rep.Segments = append(rep.Segments, sr)
	}
	if p.coherent != nil && len(rebuilt) == len(p.targets) {
		rep.Generation = p.coherent.Manifest.Generation.String()
		rep.MadeFor = o.madeFor(p.coherent)
	}
	rep.Newer = newerSeen(manifests, status, &o, p, rebuilt)
	rep.OtherSites = otherSiteNames(manifests, &o)
	if sites := recordedElsewhere(manifests, &o); len(sites) > 0 {
		rep.problem("the generations found were made for %s, not %s: restored as this site's (no generation names it)", strings.Join(sites, ", "), o.SiteURL)
	}
	return outcome(p, rebuilt, rep, o.Out)
}

// extract extracts target t: commits its early extraction, if staged has
// one, else reads the complete segment.
func extract(a *codec.Assembler, t target, o Options, staged func(target) *codec.Staged) (bundle.Report, error) {
	if st := staged(t); st != nil {
		earlyCommits.Add(1)
		return st.Commit()
	}
	return a.Extract(t.layout, o.Out, bundle.ExtractOptions{MaxTarSize: t.tarSize, Force: o.Force, Reserved: reserved(&o, o.Out)})
}

// outcome is restore's verdict: nil only for a coherent restore point
// with nothing newer seen; ErrWrite first when a whole segment could not
// be written into out.
func outcome(p plan, rebuilt []target, rep *Report, out string) error {
	short := len(p.targets) - len(rebuilt)
	switch {
	case len(p.targets) == 0:
		return nothingFound(rep)
	case rep.count("unwritten") > 0:
		return writeError(out, fmt.Errorf("%d of %d segments were whole but could not be written: %s",
			rep.count("unwritten"), len(p.targets), rep.firstDetail("unwritten")))
	case short > 0:
		msg := fmt.Sprintf("%d of %d segments rebuilt", len(rebuilt), len(p.targets))
		if n := rep.count("exists"); n > 0 {
			msg += fmt.Sprintf("; %d not restored because their files already exist in the output directory", n)
		}
		return fmt.Errorf("%w: %s", ErrPartial, msg)
	case p.coherent == nil:
		return fmt.Errorf("%w: %w: %s", ErrPartial, ErrNotCoherent, mixedDetail(rep))
	case len(rep.Newer) > 0:
		n := rep.Newer[0]
		return fmt.Errorf("%w: %w: restored generation %s of %s; newer generation %s of %s was seen but not rebuilt (%s)",
			ErrPartial, ErrOlder, rep.Generation, p.coherent.Manifest.Time.UTC().Format(time.RFC3339), n.Generation, n.Time.Format(time.RFC3339), n.Detail)
	}
	return nil
}

// firstDetail returns the detail of the first segment with the status.
func (r *Report) firstDetail(status string) string {
	for _, s := range r.Segments {
		if s.Status == status {
			return s.Detail
		}
	}
	return ""
}

// count returns how many segments have the status.
func (r *Report) count(status string) int {
	n := 0
	for _, s := range r.Segments {
		if s.Status == status {
			n++
		}
	}
	return n
}

// nothingFound says why no segment could be found at all: the cause
// decides what the user does next.
func nothingFound(rep *Report) error {
	var failed []string
	for _, s := range rep.Sources {
		if s.Error != "" && s.Captures == 0 {
			failed = append(failed, s.Name+": "+s.Error)
		}
	}
	var why string
	switch {
	case rep.Foreign > 0 && rep.Foreign >= rep.Rejected-rep.Unsigned:
		why = fmt.Sprintf("found %d Lazarus blocks or manifests, but none signed by this key: the wrong owner key or passphrase, or another site's data", rep.Foreign)
	case rep.Unsigned > 0:
		why = fmt.Sprintf("found %d unsigned Lazarus blocks, which are refused: anyone could have made them", rep.Unsigned)
	case rep.Rejected > 0:
		why = fmt.Sprintf("found %d Lazarus comments, all damaged", rep.Rejected)
	case len(rep.OtherSites) > 0:
		why = fmt.Sprintf("the blocks found are of generations signed by this key for another site (%s); give that site's URL to restore them", strings.Join(rep.OtherSites, ", "))
	case rep.Pages > 0:
		why = fmt.Sprintf("fetched %s; none holds a Lazarus block", humane.Count(rep.Pages, "page"))
	case len(failed) > 0 && len(failed) == len(rep.Sources):
		return fmt.Errorf("%w: no source could be read: %s", ErrNothingFound, strings.Join(failed, "; "))
	case rep.Captures > 0:
		var unread []string
		for _, s := range rep.Sources {
			if s.Failed > 0 {
				unread = append(unread, fmt.Sprintf("%s (%d): %s", s.Name, s.Failed, s.Error))
			}
		}
		why = fmt.Sprintf("%s listed, but none could be fetched: %s", humane.Count(rep.Captures, "capture was", "captures were"), strings.Join(unread, "; "))
	default:
		why = "the sources hold no captures of the site"
	}
	if len(failed) > 0 {
		why += "; sources that could not be read: " + strings.Join(failed, "; ")
	}
	return fmt.Errorf("%w: %s", ErrNothingFound, why)
}

// mixedDetail says which segment comes from which generation.
func mixedDetail(rep *Report) string {
	var parts, names []string
	gens := map[string]bool{}
	for _, s := range rep.Segments {
		parts = append(parts, fmt.Sprintf("segment %q from generation %s", s.Name, s.Generation))
		names = append(names, fmt.Sprintf("%q", s.Name))
		gens[s.Generation] = true
	}
	msg := "no verified manifest has every data segment complete; restored " + strings.Join(parts, ", ")
	if len(gens) == 1 {
		msg = fmt.Sprintf("no verified manifest of generation %s was found (a newer generation's pages carry its blocks, not its manifest); "+
			"restored the segments its blocks name: %s; a segment of it with no block found would be missing", rep.Segments[0].Generation, strings.Join(names, ", "))
	}
	if len(rep.Newer) > 0 {
		msg += fmt.Sprintf("; newer generation %s was seen but not rebuilt (%s)", rep.Newer[0].Generation, rep.Newer[0].Detail)
	}
	return msg
}

// target is one segment version to extract, or why it cannot be.
type target struct {
	layout  block.Layout
	tarSize int64
	err     error
}
