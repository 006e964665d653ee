package status

import (
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/odds"
)

// ArchiveOutlook is one archive's own chance of holding the newest
// generation (the manifest and k blocks of every stripe of every data
// segment) without the other sources' help.
type ArchiveOutlook struct {
	Archive string `json:"archive"`
	// At are lower bounds at the reported times; a fixed source (a WARC
	// file, a mirror) is 1 or 0 throughout: it captures nothing more.
	At []Probability `json:"at"`
}

// perArchive is what each source alone holds of the newest generation,
// for the model's per-archive view.
type perArchive struct {
	had      map[string]map[manifest.BlockRef]bool // source → blocks it holds
	manifest map[string]bool                       // source → it holds the manifest
	fixed    map[string]bool                       // sources that capture nothing more
	held     map[string]bool                       // fixed sources holding the generation whole
}

// twoArchives fills the assessment's per-archive outlooks and the chance
// that at least two archives each hold the generation on their own
// (Assessment.TwoArchives). Each archive's figure is the model's lower
// bound with that archive alone and the blocks it alone holds; the model
// takes archives as independent of one another, so the chance that two
// or more succeed follows from the single ones, and lower bounds on each
// give a lower bound on it (it grows with each).
func twoArchives(m *odds.Model, in modelInput, per perArchive, at []time.Duration, out *Assessment) {
	var curves [][]float64
	for _, a := range m.Archives {
		one := &odds.Model{Archives: []odds.Archive{a}}
		needs, bySeg := odds.Needs(in.pages, odds.Layout{Blocks: in.blocks, K: in.k, Stripes: in.stripes, Manifest: in.manifest,
			Had: per.had[a.Name], ManifestHad: per.manifest[a.Name]})
		gen := generationNeeds(needs, bySeg, in.listing)
		c := make([]float64, 0, len(at))
		for _, t := range at {
			p := one.Recoverable(in.pages, gen, t)
			if n := len(c); n > 0 && at[n-1] <= t {
				p = max(p, c[n-1]) // never falls as the horizon grows
			}
			c = append(c, finite(p))
		}
		curves = append(curves, c)
		out.PerArchive = append(out.PerArchive, ArchiveOutlook{Archive: a.Name, At: probabilityList(at, c)})
	}
	names := make([]string, 0, len(per.fixed))
	for name := range per.fixed {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := 0.0
		if per.held[name] {
			p = 1
		}
		c := make([]float64, len(at))
		for i := range c {
			c[i] = p
		}
		curves = append(curves, c)
		out.PerArchive = append(out.PerArchive, ArchiveOutlook{Archive: name, At: probabilityList(at, c)})
	}
	if len(curves) < 2 {
		return
	}
	two := make([]float64, len(at))
	ps := make([]float64, len(curves))
	for i := range at {
		for j, c := range curves {
			ps[j] = c[i]
		}
		two[i] = atLeastTwo(ps)
	}
	out.TwoArchives = probabilityList(at, two)
}

// generationNeeds are the needs of the generation as a whole: the
// manifest (needs[0]) and every data segment's stripes, listing segments
// left out (as in model).
func generationNeeds(needs []odds.Need, bySeg map[string][]int, listing []string) []odds.Need {
	out := []odds.Need{needs[0]}
	names := make([]string, 0, len(bySeg))
	for name := range bySeg {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(listing, name) {
			continue
		}
		for _, i := range bySeg[name] {
			out = append(out, needs[i])
		}
	}
	return out
}

// atLeastTwo is the probability that at least two of independent events
// with probabilities ps happen.
func atLeastTwo(ps []float64) float64 {
	none, one := 1.0, 0.0 // P(no event so far), P(exactly one)
	for _, p := range ps {
		none, one = none*(1-p), one*(1-p)+none*p
	}
	return min(max(1-none-one, 0), 1)
}
