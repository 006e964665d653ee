package statushtml

import (
	"iter"
	"maps"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// colours are the sources' colours (Okabe–Ito, distinguishable with the
// common colour-vision deficiencies), reused in order when there are more
// sources.
var colours = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C6D1F", "#999999"}

// combinedColour draws the archives combined.
const combinedColour = "#222222"

// legendItem is a source and its colour.
type legendItem struct {
	Name, Colour string
}

// palette gives every source of a report a colour, in a stable order:
// the report's sources as listed, then any other name met, sorted.
type palette struct {
	items []legendItem
	index map[string]int
}

// makePalette collects the source names of r.
func makePalette(r *status.Report) palette {
	seen := map[string]bool{status.Combined: true}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, s := range r.Sources {
		add(s.Name)
	}
	listed := len(names)
	for _, c := range r.Captures {
		add(c.Source)
	}
	for _, t := range r.Timelines {
		add(t.Source)
	}
	for _, p := range r.Pages {
		for n := range p.Captures {
			add(n)
		}
	}
	for _, g := range r.Generations {
		for _, s := range g.Segments {
			for _, st := range s.PerStripe {
				for n := range st.Have {
					add(n)
				}
			}
		}
	}
	slices.Sort(names[listed:])
	p := palette{index: map[string]int{}}
	for i, n := range names {
		p.index[n] = i
		p.items = append(p.items, legendItem{n, colours[i%len(colours)]})
	}
	return p
}

// colour is a source's colour; the archives combined are dark.
func (p palette) colour(name string) string {
	if i, ok := p.index[name]; ok {
		return p.items[i].Colour
	}
	return combinedColour
}

// used returns the palette's items whose names names yields, in palette
// order.
func (p palette) used(names iter.Seq[string]) []legendItem {
	in := map[int]bool{}
	for n := range names {
		if i, ok := p.index[n]; ok {
			in[i] = true
		}
	}
	var out []legendItem
	for _, i := range slices.Sorted(maps.Keys(in)) {
		out = append(out, p.items[i])
	}
	return out
}
