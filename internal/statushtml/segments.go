package statushtml

import (
	"fmt"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// maxGenerationTables bounds the generations tabulated, newest first.
const maxGenerationTables = 10

// genTable is one generation's segments: archived blocks against k.
type genTable struct {
	ID, Time, TimeRFC string
	Recoverable       bool
	Newest, Restore   bool // the newest generation; the restore point
	Short             []string
	Sources           []legendItem // per-source columns
	Segments          []segRow
}

// segRow is one segment: its stripes' distinct archived blocks, the
// weakest and the median stripe combined, and the weakest per source.
type segRow struct {
	Name, Version   string
	Listing         bool
	K, M, Stripes   int
	Complete        int
	Recoverable     bool
	Weakest, Median int // combined, over the stripes reported
	Short           int // K − Weakest when positive
	PerSource       []int
	Reported        int // stripes in the report (PerStripe)
	Unchanged       bool
}

// makeGenTables tabulates the first maxGenerationTables generations and
// returns how many were left out.
func makeGenTables(r *status.Report, pal palette) ([]genTable, int) {
	var out []genTable
	for i, g := range r.Generations {
		if i == maxGenerationTables {
			return out, len(r.Generations) - i
		}
		t := genTable{ID: g.ID, Time: fmtTime(g.Time), TimeRFC: rfc3339(g.Time), Recoverable: g.Recoverable,
			Newest: g.ID == r.Newest, Restore: r.RestorePoint != nil && r.RestorePoint.Generation == g.ID}
		for j, s := range g.Short {
			if j == maxShortShown {
				t.Short = append(t.Short, fmt.Sprintf("and %d more", len(g.Short)-j))
				break
			}
			t.Short = append(t.Short, shortenWords(s))
		}
		t.Sources = pal.used(func(yield func(string) bool) {
			for _, s := range g.Segments {
				for _, st := range s.PerStripe {
					for name := range st.Have {
						if !yield(name) {
							return
						}
					}
				}
			}
		})
		for _, s := range g.Segments {
			t.Segments = append(t.Segments, makeSegRow(g.ID, s, t.Sources))
		}
		out = append(out, t)
	}
	return out, 0
}

// makeSegRow summarizes one segment's stripes.
func makeSegRow(gen string, s status.Segment, sources []legendItem) segRow {
	row := segRow{Name: s.Name, Version: s.Version, Listing: s.Listing, K: s.K, M: s.M, Stripes: s.Stripes,
		Complete: s.Complete, Recoverable: s.Recoverable, Reported: len(s.PerStripe),
		Unchanged: s.Version != "" && s.Version != gen, PerSource: make([]int, len(sources))}
	combined := make([]int, len(s.PerStripe))
	for i, st := range s.PerStripe {
		combined[i] = st.Combined
	}
	slices.Sort(combined)
	if len(combined) > 0 {
		row.Weakest, row.Median = combined[0], combined[(len(combined)-1)/2]
	}
	row.Short = max(0, s.K-row.Weakest)
	for i, src := range sources {
		for j, st := range s.PerStripe {
			if n := st.Have[src.Name]; j == 0 || n < row.PerSource[i] {
				row.PerSource[i] = n
			}
		}
	}
	return row
}
