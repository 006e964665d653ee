package injector

import (
	"maps"
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/odds"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Outlook is what is known of the current generation's chances once it is
// on the pages, model-free facts first: how many carrier pages it may lose
// whichever they are, how many carry its manifest, then the capture
// model's probability that the archives hold enough of it within each
// horizon.
type Outlook struct {
	Carriers      int `json:"carriers"`         // pages carrying its blocks
	Survives      int `json:"survives_loss_of"` // carrier pages it survives losing, whichever they are, manifest included (−1: short even with every page)
	ManifestPages int `json:"manifest_pages"`   // pages carrying its manifest
	// Within are the capture model's probabilities (lower bounds) that
	// the archives hold the manifest and enough blocks of every stripe
	// within each horizon from now. Inject reads no capture history, so
	// they are the model's prior for the archives in Archives: what a
	// site no archive has captured yet can expect (lazarus status fits
	// the model to the archives' history).
	Within   []Chance `json:"within"`
	Archives []string `json:"archives"`
}

// Chance is a probability within a horizon.
type Chance struct {
	Days        int     `json:"days"`
	Probability float64 `json:"probability"`
}

// OutlookArchives are the archives inject's outlook counts on: the
// default sources of lazarus recover.
var OutlookArchives = []string{"commoncrawl", "wayback"}

// moduleManifestPages is how many pages the Caddy module serves a
// generation's manifest on at least (the root and pages one hop from it,
// its light setting), for the outlook of a bundle whose pages are not
// known yet.
const moduleManifestPages = 13

// outlookDays are the horizons of the outlook.
var outlookDays = []int{1, 7, 30}

// outlook computes the generation's outlook from its plan.
func (r *run) outlook(p *placement.Plan) *Outlook {
	// The pages are the plan's (its carriers and manifest pages), at the
	// depth discovery found, else (pages planned for but not known: a
	// bundle's stand-ins) at the deepest level.
	depth := map[string]int{}
	for _, pg := range r.pages {
		depth[pg.URL] = pg.Depth
	}
	var pages []odds.Page
	seen := map[string]bool{}
	for _, url := range append(slices.Sorted(maps.Keys(p.Pages)), p.Manifest...) {
		if seen[url] {
			continue
		}
		seen[url] = true
		d, ok := depth[url]
		if !ok || isVirtual(url) {
			d = -1
		}
		pages = append(pages, odds.Page{Key: url, Depth: d})
	}
	manifestOn := p.Manifest
	if len(manifestOn) == 1 && isVirtual(manifestOn[0]) {
		// A bundle's plan puts the manifest on the root stand-in; the
		// Caddy module serves it on the root and on up to
		// moduleManifestPages−1 pages linked from it.
		manifestOn = nil
		for _, pg := range pages {
			if isVirtual(pg.Key) && len(manifestOn) < moduleManifestPages {
				manifestOn = append(manifestOn, pg.Key)
			}
		}
	}
	l := p.Layout()
	l.Manifest = manifestOn
	needs, _ := odds.Needs(pages, l)
	o := &Outlook{Carriers: len(p.Pages), Survives: odds.Tolerance(needs), ManifestPages: len(manifestOn), Archives: OutlookArchives}
	m := odds.Fit(odds.History{Now: r.o.Now(), Since: r.o.Now(), Pages: pages, Archives: OutlookArchives})
	for _, d := range outlookDays {
		o.Within = append(o.Within, Chance{Days: d, Probability: m.Recoverable(pages, needs, time.Duration(d)*odds.Day)})
	}
	return o
}
