package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// sitePage is one HTML page of a world's site.
type sitePage struct {
	URL      string // path served, as "/", "/s3/", "/s3/p2.html"
	File     string // slash path in the site directory
	Depth    int    // link hops from the root
	Title    string
	Children []int // the pages it links to in its body, beyond the navigation
	Text     int   // bytes of body text
}

// site is a world's static site: a root page linking about 9 section
// pages, which link about 15 articles, which link about 15 notes (40
// pages at depths 0–3, as a small project or documentation site), every
// page carrying a navigation bar to the root and the sections.
type site struct {
	Pages []sitePage
	words []string // the vocabulary of the page text
}

// newSite draws a site: how many pages each level has (around 9, 15 and
// 15), which section holds which article and which article which note,
// and how much text each page has (log-uniform from 2 KB to 60 KB, a
// few longer pages; the root page 4–20 KB).
func newSite(rng *rand.Rand) *site {
	s := &site{words: vocabulary(rng, 1500)}
	sections := 8 + rng.IntN(3)  // 8–10
	articles := 13 + rng.IntN(5) // 13–17
	notes := 13 + rng.IntN(5)    // 13–17
	s.Pages = append(s.Pages, sitePage{URL: "/", File: "index.html", Depth: 0, Title: "Home", Text: int(logUniform(rng, 4_000, 20_000))})
	for i := range sections {
		s.Pages = append(s.Pages, sitePage{URL: fmt.Sprintf("/s%d/", i+1), File: fmt.Sprintf("s%d/index.html", i+1), Depth: 1,
			Title: "Section " + s.word(rng), Text: int(logUniform(rng, 2_000, 30_000))})
		s.Pages[0].Children = append(s.Pages[0].Children, len(s.Pages)-1)
	}
	firstArticle := len(s.Pages)
	for i := range articles {
		sec := 1 + rng.IntN(sections)
		if i < sections {
			sec = 1 + i // every section has an article
		}
		s.Pages = append(s.Pages, sitePage{URL: fmt.Sprintf("/s%d/p%d.html", sec, i+1), File: fmt.Sprintf("s%d/p%d.html", sec, i+1), Depth: 2,
			Title: "Article " + s.word(rng), Text: s.textSize(rng)})
		s.Pages[sec].Children = append(s.Pages[sec].Children, len(s.Pages)-1)
	}
	for i := range notes {
		art := firstArticle + rng.IntN(articles)
		dir := s.Pages[art].File[:strings.Index(s.Pages[art].File, "/")]
		s.Pages = append(s.Pages, sitePage{URL: fmt.Sprintf("/%s/n%d.html", dir, i+1), File: fmt.Sprintf("%s/n%d.html", dir, i+1), Depth: 3,
			Title: "Note " + s.word(rng), Text: s.textSize(rng)})
		s.Pages[art].Children = append(s.Pages[art].Children, len(s.Pages)-1)
	}
	return s
}

// textSize draws a page's text size: log-uniform from 2 KB to 60 KB, one
// page in ten up to 200 KB.
func (s *site) textSize(rng *rand.Rand) int {
	if rng.IntN(10) == 0 {
		return int(logUniform(rng, 60_000, 200_000))
	}
	return int(logUniform(rng, 2_000, 60_000))
}

// write writes the site's pages (without Lazarus blocks) into dir.
func (s *site) write(dir string, rng *rand.Rand) error {
	for _, p := range s.Pages {
		path := filepath.Join(dir, filepath.FromSlash(p.File))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, s.html(p, rng), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// html renders a page: a navigation bar, its title, paragraphs of text,
// and links to its children.
func (s *site) html(p sitePage, rng *rand.Rand) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n</head>\n<body>\n<nav>\n<a href=\"/\">Home</a>\n", p.Title)
	for _, q := range s.Pages {
		if q.Depth == 1 {
			fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", q.URL, q.Title)
		}
	}
	fmt.Fprintf(&b, "</nav>\n<main>\n<h1>%s</h1>\n", p.Title)
	for b.Len() < p.Text {
		b.WriteString("<p>")
		for range 40 + rng.IntN(80) {
			b.WriteString(s.word(rng))
			b.WriteByte(' ')
		}
		b.WriteString("</p>\n")
	}
	if len(p.Children) > 0 {
		b.WriteString("<ul>\n")
		for _, c := range p.Children {
			fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", s.Pages[c].URL, s.Pages[c].Title)
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	return []byte(b.String())
}

// word draws a word, frequent words more often (Zipf-like).
func (s *site) word(rng *rand.Rand) string {
	i := int(math.Exp(rng.Float64()*math.Log(float64(len(s.words))))) - 1
	return s.words[i]
}

// vocabulary draws n pronounceable words.
func vocabulary(rng *rand.Rand, n int) []string {
	const cons, vows = "bcdfghklmnprstvz", "aeiou"
	out := make([]string, n)
	for i := range out {
		var w strings.Builder
		for range 1 + rng.IntN(4) {
			w.WriteByte(cons[rng.IntN(len(cons))])
			w.WriteByte(vows[rng.IntN(len(vows))])
		}
		out[i] = w.String()
	}
	return out
}

// logUniform draws from lo to hi, uniform in log.
func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// logNormal draws a log-normal value of median median and log-spread
// sigma.
func logNormal(rng *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*rng.NormFloat64())
}
