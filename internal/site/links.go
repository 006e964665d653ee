package site

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// pageScan is what the crawl needs from one page.
type pageScan struct {
	hrefs   []string // link targets in document order, as written
	base    string   // href of the first <base> that has one
	hasBase bool
	robots  robotsMeta
}

// robotsMeta records the robots meta directives of a page: for each, the
// <meta name> that gave it first ("robots" or an agent), or "".
type robotsMeta struct {
	noindex, noarchive, nofollow string
}

// linkAttr maps the elements whose links the crawl follows to the attribute
// holding the link.
var linkAttr = map[string]string{"a": "href", "area": "href", "iframe": "src", "frame": "src"}

// scanPage tokenizes a page and collects its links, its <base href> and the
// robots directives of its <meta> tags whose name is one of metaNames (lower
// case). Content of <template> elements is not part of the document and is
// skipped, as is everything the tokenizer reads as raw text (script, style,
// noscript, …).
func scanPage(page []byte, metaNames []string) pageScan {
	var s pageScan
	z := html.NewTokenizer(bytes.NewReader(page))
	templates := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return s
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch {
			case string(name) == "template":
				templates += boolInt(tt == html.StartTagToken)
			case templates == 0 && hasAttr && interesting(string(name)):
				s.startTag(string(name), attrs(z), metaNames)
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "template" && templates > 0 {
				templates--
			}
		}
	}
}

// interesting reports whether scanPage needs the attributes of a tag.
func interesting(name string) bool {
	_, link := linkAttr[name]
	return link || name == "base" || name == "meta"
}

// startTag records what one start tag contributes.
func (s *pageScan) startTag(name string, a map[string]string, metaNames []string) {
	switch name {
	case "base":
		if h, ok := a["href"]; ok && !s.hasBase {
			s.base, s.hasBase = h, true
		}
	case "meta":
		n := strings.ToLower(strings.TrimSpace(a["name"]))
		for _, m := range metaNames {
			if n == m {
				s.robots.add(n, a["content"])
			}
		}
	default:
		if k, ok := linkAttr[name]; ok {
			if h, ok := a[k]; ok {
				s.hrefs = append(s.hrefs, h)
			}
		}
	}
}

// attrs returns the attributes of the current tag; the first of duplicates
// counts, as in browsers.
func attrs(z *html.Tokenizer) map[string]string {
	a := make(map[string]string)
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, dup := a[string(k)]; !dup {
			a[string(k)] = string(v)
		}
	}
	return a
}

// add records the directives of one robots meta tag named name. Directives
// are separated by commas or whitespace and case-insensitive; "none" is
// "noindex, nofollow" and Bing's "nocache" is "noarchive".
func (m *robotsMeta) add(name, content string) {
	f := strings.FieldsFunc(strings.ToLower(content), func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	})
	set := func(p *string) {
		if *p == "" {
			*p = name
		}
	}
	for _, d := range f {
		switch d {
		case "noindex":
			set(&m.noindex)
		case "noarchive", "nocache":
			set(&m.noarchive)
		case "nofollow":
			set(&m.nofollow)
		case "none":
			set(&m.noindex)
			set(&m.nofollow)
		}
	}
}

// targets resolves the links of a page served at doc, with its scan s,
// against its base URL and returns those on the site, in document order,
// without duplicates. Links to the page itself (empty or fragment only),
// other hosts, other schemes (mailto:, javascript:, data:, …), and
// unparsable or overlong links are dropped.
func (r siteRoot) targets(s *pageScan, doc *url.URL) []target {
	on, _ := r.links(s, doc)
	return on
}

// links resolves a page's links as targets does, and also returns the
// paths, without query, of the links to the site's host outside the site
// URL's path ("/post1.html" for a site URL of https://example.org/blog/),
// in document order, without duplicates.
func (r siteRoot) links(s *pageScan, doc *url.URL) (on []target, outside []string) {
	base := doc
	if s.hasBase {
		if b, ok := parseHref(s.base); ok {
			base = doc.ResolveReference(b)
		}
	}
	seen := make(map[target]bool)
	seenOutside := make(map[string]bool)
	for _, h := range s.hrefs {
		ref, ok := parseHref(h)
		if !ok || selfLink(ref) && !s.hasBase {
			continue
		}
		u := base.ResolveReference(ref)
		t, ok := r.locate(u)
		if ok && !seen[t] {
			seen[t] = true
			on = append(on, t)
		}
		if p, ok := r.offPath(u); ok && !seenOutside[p] {
			seenOutside[p] = true
			outside = append(outside, p)
		}
	}
	return on, outside
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
