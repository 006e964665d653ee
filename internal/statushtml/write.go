package statushtml

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// maxProblemsShown bounds the report's problems listed on the page.
const maxProblemsShown = 50

//go:embed page.tmpl
var pageSource string

// pageTemplate is the page; html/template escapes every value in its
// context (text, attribute, the SVG inside the HTML).
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"count": humane.Count}).Parse(pageSource))

// page is everything the template shows.
type page struct {
	Site, Now, NowRFC  string
	Verdict            verdict
	Outlook            *outlook
	CorrelationNote    string
	Prec               *precChart
	Blocks             []blocksChart
	BlocksOmitted      int
	BlocksLegend       []legendItem
	Pages              *pagesChart
	Generations        []genTable
	GenerationsOmitted int
	Sources            []sourceRow
	Unfetched          int // captures left unfetched, over the sources
	History            status.History
	Captures           int
	Notes              []string
	Problems           []string
	ProblemsOmitted    int
	Combined           legendItem
	MaxPagesShown      int
	NoBlocks           string // why there is no block chart, when there is none
}

// sourceRow is one source's line in the sources table.
type sourceRow struct {
	status.SourceReport
	Colour string
}

// Write writes r as one self-contained HTML page: no script, nothing
// fetched from the network, every value from the report escaped; exit is
// the exit status the command gives for the report, which the page
// explains. It writes nothing if the page cannot be made.
func Write(w io.Writer, r *status.Report, exit int) error {
	if r == nil {
		return errors.New("writing the status page: no report")
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, makePage(r, exit)); err != nil {
		return fmt.Errorf("writing the status page: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the status page: %w", err)
	}
	return nil
}

// makePage lays out r.
func makePage(r *status.Report, exit int) page {
	pal := makePalette(r)
	sp := timeSpan(r)
	p := page{Site: shorten(r.Site, urlTitle), Now: fmtTime(r.Now), NowRFC: rfc3339(r.Now),
		Verdict: makeVerdict(r, exit), Outlook: makeOutlook(r.Assessment), CorrelationNote: correlationNote,
		Prec: makePrecChart(r.Assessment), Pages: makePagesChart(r, pal, sp), History: r.History,
		Captures: len(r.Captures), ProblemsOmitted: r.ProblemsOmitted,
		Combined: legendItem{status.Combined, combinedColour}, MaxPagesShown: MaxPagesShown,
		NoBlocks: noBlocks(r)}
	p.Blocks, p.BlocksOmitted = makeBlockCharts(r, pal, sp)
	p.BlocksLegend = pal.used(func(yield func(string) bool) {
		for _, c := range p.Blocks {
			for _, s := range c.Series {
				if !yield(s.Source) {
					return
				}
			}
		}
	})
	p.Generations, p.GenerationsOmitted = makeGenTables(r, pal)
	for _, s := range r.Sources {
		colour := pal.colour(s.Name)
		s.Name, s.Error = plain(s.Name), plain(s.Error)
		p.Sources = append(p.Sources, sourceRow{s, colour})
		p.Unfetched += s.Unfetched
	}
	problems := r.Problems
	if len(problems) > maxProblemsShown {
		p.ProblemsOmitted += len(problems) - maxProblemsShown
		problems = problems[:maxProblemsShown]
	}
	p.Problems = plainAll(problems)
	p.Notes = plainAll(r.Notes)
	return p
}

// timeSpan is the time axis of the time charts: the data's span, from
// the earliest capture, timeline point or charted generation's time to
// the report's time (the latest seen if it has none), with a margin of a
// twenty-fifth of it (five minutes for an instant) on either side so no point sits
// on an edge. Ticks are fitted to it by timeTicks.
func timeSpan(r *status.Report) span {
	var from, last time.Time
	see := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if from.IsZero() || t.Before(from) {
			from = t
		}
		if t.After(last) {
			last = t
		}
	}
	for _, c := range r.Captures {
		see(c.Time)
	}
	for _, t := range r.Timelines {
		for _, p := range t.Points {
			see(p.Time)
		}
	}
	for _, p := range r.Pages {
		for _, ts := range p.Captures {
			for _, t := range ts {
				see(t)
			}
		}
	}
	for _, g := range chartedGenerations(r) {
		see(g.Time)
	}
	end := r.Now
	if end.IsZero() {
		end = last
	}
	if end.IsZero() {
		end = time.Unix(0, 0)
	}
	if from.IsZero() || from.After(end) {
		from = end
	}
	pad := 5 * time.Minute
	if d := end.Sub(from); d > 0 {
		pad = max(d/25, time.Second)
	}
	return span{From: from.Add(-pad), To: end.Add(pad), End: end}
}

// plainAll is plain of each of ss, in a new slice (nil for none).
func plainAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, plain(s))
	}
	return out
}
