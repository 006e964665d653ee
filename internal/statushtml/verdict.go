package statushtml

import (
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// verdict is the page's headline.
type verdict struct {
	Exit   int
	Class  string // "ok", "warn" or "bad": the colour of the box
	Title  string
	Lines  []string
	Point  *restorePoint
	Newest string
}

// restorePoint is the restore point in words and machine form.
type restorePoint struct {
	Generation string
	Time, Age  string
	TimeRFC    string
	AgeNS      int64
	Newest     bool
}

// makeVerdict says whether the newest generation is recoverable now, what
// the restore point is, and what the exit code means.
func makeVerdict(r *status.Report, exit int) verdict {
	v := verdict{Exit: exit, Newest: r.Newest}
	if rp := r.RestorePoint; rp != nil {
		v.Point = &restorePoint{Generation: rp.Generation, Time: fmtTime(rp.Time), Age: humane.Duration(rp.Age),
			TimeRFC: rfc3339(rp.Time), AgeNS: int64(rp.Age), Newest: rp.Newest}
	}
	switch r.Outcome() {
	case status.NewestRecoverable:
		v.Class, v.Title = "ok", "The newest generation is recoverable from the archives now."
	case status.OlderRecoverable:
		v.Class, v.Title = "warn", "Only an older generation is recoverable from the archives now."
	default:
		v.Class, v.Title = "bad", "Nothing is recoverable from the archives now."
		if r.Newest == "" {
			v.Title = "No generation of this site was found, in the archives or the serve history."
		}
		if title, why := notTheArchives(r); title != "" {
			v.Title, v.Lines = title, append(v.Lines, why)
		}
	}
	if p := v.Point; p != nil {
		v.Lines = append(v.Lines, fmt.Sprintf("Restore point: generation %s, made %s, %s old.", p.Generation, p.Time, p.Age))
	}
	if g := findGeneration(r, r.Newest); g != nil && !g.Recoverable {
		line := fmt.Sprintf("The newest generation, %s (made %s), is not recoverable yet", g.ID, fmtTime(g.Time))
		if len(g.Short) > 0 {
			line += ": " + joinShort(g.Short)
		}
		v.Lines = append(v.Lines, line+".")
	}
	v.Lines = append(v.Lines, fmt.Sprintf("lazarus status exits 0 when the newest generation is recoverable now, "+
		"3 when only an older one is, 1 when none is; for this report it exits %d.", v.Exit))
	return v
}

// maxShortShown bounds the short segments named in the headline.
const maxShortShown = 4

// joinShort lists the first short segments, saying how many more there are.
func joinShort(short []string) string {
	s := ""
	for i, x := range short {
		if i == maxShortShown {
			return s + fmt.Sprintf("; and %d more", len(short)-i)
		}
		if i > 0 {
			s += "; "
		}
		s += shortenWords(x)
	}
	return s
}

// findGeneration returns the generation with the given id, nil if none.
func findGeneration(r *status.Report, id string) *status.Generation {
	for i := range r.Generations {
		if id != "" && r.Generations[i].ID == id {
			return &r.Generations[i]
		}
	}
	return nil
}
